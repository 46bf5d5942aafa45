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
	"sort"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	apiserverconfigv1 "k8s.io/apiserver/pkg/apis/apiserver/v1"
	"k8s.io/apiserver/pkg/storage/value"
	aestransformer "k8s.io/apiserver/pkg/storage/value/encrypt/aes"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"
)

// etcdPrefixes are the keys read raw: every Service and every IPAddress, below local-up's
// (and upstream's default) --etcd-prefix.
var etcdPrefixes = []string{"/registry/services/specs/", "/registry/ipaddresses/"}

// encryptedPrefix is what testdata/encryption.yaml's key makes every value start with.
const encryptedPrefix = "k8s:enc:aescbc:v1:fidelity:"

// readEtcd records every Service's and IPAddress's value as stored: whether it is
// encrypted, the object it decodes to, and which other keys share its create revision (an
// IPAddress written in one transaction with its Service does).
func (r *run) readEtcd(ctx context.Context, step string) {
	client, err := clientv3.New(clientv3.Config{Endpoints: []string{r.cluster.etcdURL}, DialTimeout: 10 * time.Second})
	if err != nil {
		r.t.Fatalf("etcd client: %v", err)
	}
	defer client.Close()
	transformer, err := decrypter()
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
			data := kv.Value
			if bytes.HasPrefix(data, []byte(encryptedPrefix)) {
				v["encryption"] = encryptedPrefix
				data, _, err = transformer.TransformFromStorage(ctx, data, value.DefaultContext(key))
				if err != nil {
					r.t.Fatalf("decrypting %s: %v", key, err)
				}
			} else if strings.Contains(key, "/services/specs/") || strings.Contains(key, "/ipaddresses/") {
				r.t.Errorf("%s is stored in clear, not with the %s provider", key, encryptedPrefix)
			}
			obj, gvk, err := scheme.Codecs.UniversalDeserializer().Decode(data, nil, nil)
			if err != nil {
				v["undecodable"] = err.Error()
			} else {
				v["kind"] = gvk.String()
				v["object"] = toJSON(obj)
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

// decrypter reads testdata/encryption.yaml's aescbc key the way the apiservers do.
func decrypter() (value.Transformer, error) {
	data, err := os.ReadFile("testdata/encryption.yaml")
	if err != nil {
		return nil, err
	}
	var config apiserverconfigv1.EncryptionConfiguration
	if err := yaml.Unmarshal(data, &config); err != nil {
		return nil, fmt.Errorf("testdata/encryption.yaml: %w", err)
	}
	for _, res := range config.Resources {
		for _, p := range res.Providers {
			if p.AESCBC == nil || len(p.AESCBC.Keys) == 0 {
				continue
			}
			secret, err := base64.StdEncoding.DecodeString(p.AESCBC.Keys[0].Secret)
			if err != nil {
				return nil, fmt.Errorf("testdata/encryption.yaml: key %s: %w", p.AESCBC.Keys[0].Name, err)
			}
			block, err := aes.NewCipher(secret)
			if err != nil {
				return nil, err
			}
			return value.NewPrefixTransformers(nil, value.PrefixTransformer{
				Prefix:      []byte(encryptedPrefix),
				Transformer: aestransformer.NewCBCTransformer(block),
			}), nil
		}
	}
	return nil, fmt.Errorf("testdata/encryption.yaml has no aescbc key")
}
