/*
Copyright 2026 The netfork Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package fidelity

import (
	"bytes"
	"context"
	"crypto/aes"
	"encoding/base64"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	apiserverconfigv1 "k8s.io/apiserver/pkg/apis/apiserver/v1"
	"k8s.io/apiserver/pkg/storage/value"
	aestransformer "k8s.io/apiserver/pkg/storage/value/encrypt/aes"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"
)

// etcdPrefixes are the keys read raw: every Service and every IPAddress, below local-up's
// (and upstream's default) --etcd-prefix.
var etcdPrefixes = []string{"/registry/services/specs/", "/registry/ipaddresses/"}

// The encryption configurations each apiserver runs with: encryptionConfig first, then,
// from the restart that rotates the key on, rotatedEncryptionConfig, which holds every key.
const (
	encryptionConfig        = "testdata/encryption.yaml"
	rotatedEncryptionConfig = "testdata/encryption-rotated.yaml"
)

// readEtcd records every Service's and IPAddress's value as stored: the encryption prefix
// it starts with (which names the key), the object it decrypts and decodes to, whether
// the API reads the same object back, and which other keys share its create revision (an
// IPAddress written in one transaction with its Service does).
func (r *run) readEtcd(ctx context.Context, step string) {
	client, err := clientv3.New(clientv3.Config{Endpoints: []string{r.cluster.etcdURL}, DialTimeout: 10 * time.Second})
	if err != nil {
		r.t.Fatalf("etcd client: %v", err)
	}
	defer client.Close()
	keys, err := decrypters(rotatedEncryptionConfig)
	if err != nil {
		r.t.Fatalf("%v", err)
	}
	byRevision := map[int64][]string{}
	type stored struct {
		key      string
		revision int64
		value    map[string]any
	}
	var all []stored
	for _, prefix := range etcdPrefixes {
		resp, err := client.Get(ctx, prefix, clientv3.WithPrefix())
		if err != nil {
			r.t.Fatalf("reading %s from etcd: %v", prefix, err)
		}
		for _, kv := range resp.Kvs {
			key := string(kv.Key)
			v := map[string]any{"encryption": "none"}
			data, encryption, err := keys.decrypt(ctx, key, kv.Value)
			if err != nil {
				r.t.Fatalf("decrypting %s: %v", key, err)
			}
			if encryption == "" {
				r.t.Errorf("%s is stored in clear, not with one of the aescbc keys of %s", key, rotatedEncryptionConfig)
			} else {
				v["encryption"] = encryption
			}
			obj, gvk, err := scheme.Codecs.UniversalDeserializer().Decode(data, nil, nil)
			if err != nil {
				v["undecodable"] = err.Error()
			} else {
				v["kind"] = gvk.String()
				v["object"] = toJSON(obj)
				v["readBack"] = r.readBack(ctx, key, obj, kv.ModRevision)
			}
			all = append(all, stored{key: key, revision: kv.CreateRevision, value: v})
			byRevision[kv.CreateRevision] = append(byRevision[kv.CreateRevision], key)
		}
	}
	for _, s := range all {
		same := []string{}
		for _, k := range byRevision[s.revision] {
			if k != s.key {
				same = append(same, k)
			}
		}
		sort.Strings(same)
		s.value["createRevisionSharedWith"] = strings.Join(same, ", ")
		r.etcd = append(r.etcd, record{key: []string{"etcd", step, s.key}, value: toJSON(s.value)})
	}
}

// readBack compares stored, decoded from etcd key at revision, with the object the API
// reads for that key: "same", or what differs (and the test fails: the apiserver must read
// back every value, whichever key encrypted it).
func (r *run) readBack(ctx context.Context, key string, stored runtime.Object, revision int64) string {
	var served runtime.Object
	var err error
	switch {
	case strings.HasPrefix(key, "/registry/services/specs/"):
		namespace, name, _ := strings.Cut(strings.TrimPrefix(key, "/registry/services/specs/"), "/")
		served, err = r.admin.CoreV1().Services(namespace).Get(ctx, name, metav1.GetOptions{})
	case strings.HasPrefix(key, "/registry/ipaddresses/"):
		served, err = r.admin.NetworkingV1().IPAddresses().Get(ctx, strings.TrimPrefix(key, "/registry/ipaddresses/"), metav1.GetOptions{})
	default:
		return "not read"
	}
	if err != nil {
		r.t.Errorf("reading back %s through the API: %v", key, err)
		return "read back: " + err.Error()
	}
	m, err := meta.Accessor(stored)
	if err != nil {
		return err.Error()
	}
	m.SetResourceVersion(strconv.FormatInt(revision, 10))
	stored.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
	served.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
	want, got := toJSON(stored), toJSON(served)
	if reflect.DeepEqual(want, got) {
		return "same"
	}
	r.t.Errorf("the API reads back %s as\n%v\nwhere etcd holds\n%v", key, got, want)
	return "differs"
}

// keyring decrypts values written with any of the aescbc keys of an encryption
// configuration.
type keyring struct {
	prefixes    []string
	transformer value.Transformer
}

// decrypters reads the aescbc keys of the encryption configuration at path, as the
// apiservers do.
func decrypters(path string) (*keyring, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var config apiserverconfigv1.EncryptionConfiguration
	if err := yaml.Unmarshal(data, &config); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	k := &keyring{}
	var transformers []value.PrefixTransformer
	for _, res := range config.Resources {
		for _, p := range res.Providers {
			if p.AESCBC == nil {
				continue
			}
			for _, key := range p.AESCBC.Keys {
				secret, err := base64.StdEncoding.DecodeString(key.Secret)
				if err != nil {
					return nil, fmt.Errorf("%s: key %s: %w", path, key.Name, err)
				}
				block, err := aes.NewCipher(secret)
				if err != nil {
					return nil, fmt.Errorf("%s: key %s: %w", path, key.Name, err)
				}
				prefix := "k8s:enc:aescbc:v1:" + key.Name + ":"
				k.prefixes = append(k.prefixes, prefix)
				transformers = append(transformers, value.PrefixTransformer{Prefix: []byte(prefix), Transformer: aestransformer.NewCBCTransformer(block)})
			}
		}
	}
	if len(transformers) == 0 {
		return nil, fmt.Errorf("%s has no aescbc key", path)
	}
	k.transformer = value.NewPrefixTransformers(nil, transformers...)
	return k, nil
}

// decrypt is data, stored at key, decrypted, and the prefix of the key that encrypted
// it; data as it is and "" for a value no key encrypted.
func (k *keyring) decrypt(ctx context.Context, key string, data []byte) ([]byte, string, error) {
	for _, prefix := range k.prefixes {
		if bytes.HasPrefix(data, []byte(prefix)) {
			out, _, err := k.transformer.TransformFromStorage(ctx, data, value.DefaultContext(key))
			return out, prefix, err
		}
	}
	return data, "", nil
}
