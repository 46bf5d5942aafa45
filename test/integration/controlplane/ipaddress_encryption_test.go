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

package controlplane

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	encryptionconfigcontroller "k8s.io/apiserver/pkg/server/options/encryptionconfig/controller"

	"github.com/netfork/netfork/test/integration/framework"
)

// encryptionKey is one aescbc key of an EncryptionConfiguration.
type encryptionKey struct{ name, secret string }

// newEncryptionKey makes a random aescbc key named name.
func newEncryptionKey(t *testing.T, name string) encryptionKey {
	t.Helper()
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		t.Fatalf("making an encryption key: %v", err)
	}
	return encryptionKey{name: name, secret: base64.StdEncoding.EncodeToString(key)}
}

// prefix is how a value this key encrypted starts in etcd.
func (k encryptionKey) prefix() string { return "k8s:enc:aescbc:v1:" + k.name + ":" }

// TestIPAddressesEncryptedAtRest starts an apiserver that encrypts Services
// and IPAddresses with aescbc. Every Service and IPAddress it stores, those it
// writes together in one transaction included, is encrypted in etcd: each value
// under the two resources' keys starts with the aescbc prefix and holds
// neither the addresses nor the Service's name in clear. Both read back
// through the API as they were created.
func TestIPAddressesEncryptedAtRest(t *testing.T) {
	ctx := context.Background()
	prefix := framework.NewEtcdPrefix(t)
	config, key := newEncryptionConfig(t)
	s := framework.StartAPIServer(t, framework.WithEtcdPrefix(prefix),
		framework.WithFlags("--service-cluster-ip-range="+dualStackRanges, "--encryption-provider-config="+config))
	defer s.Stop()
	waitKubernetesService(ctx, t, s.Client)
	etcd := etcdClient(t)

	for _, svc := range []*corev1.Service{
		clusterIPService("sealed"),
		withFamilies(clusterIPService("sealed-dual"), corev1.IPFamilyPolicyRequireDualStack),
	} {
		created := createService(ctx, t, s.Client, svc)
		checkServiceEncrypted(ctx, t, etcd, prefix, created, key)
		for _, ip := range created.Spec.ClusterIPs {
			checkAllocatorIPAddress(t, waitIPAddress(ctx, t, s.Client, ip, created), created)
		}
		got, err := s.Client.CoreV1().Services(created.Namespace).Get(ctx, created.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("reading back Service %s: %v", created.Name, err)
		}
		if got.UID != created.UID || fmt.Sprint(got.Spec.ClusterIPs) != fmt.Sprint(created.Spec.ClusterIPs) {
			t.Errorf("Service %s reads back as UID %s ClusterIPs %v; created as UID %s ClusterIPs %v", created.Name, got.UID, got.Spec.ClusterIPs, created.UID, created.Spec.ClusterIPs)
		}
	}

	// Nothing of either resource is stored in clear, the kubernetes Service and its IPAddress included.
	for _, dir := range []string{prefix + "/services/specs/", prefix + "/ipaddresses/"} {
		resp, err := etcd.Get(ctx, dir, clientv3.WithPrefix())
		if err != nil {
			t.Fatalf("listing %s: %v", dir, err)
		}
		if len(resp.Kvs) == 0 {
			t.Errorf("no keys under %s", dir)
		}
		for _, kv := range resp.Kvs {
			if !bytes.HasPrefix(kv.Value, []byte(key.prefix())) {
				t.Errorf("%s is stored unencrypted: it starts with %q, want %q", kv.Key, prefixOf(kv.Value, key), key.prefix())
			}
		}
	}
}

// serviceKey is where a Service is stored: upstream's storage factory gives
// services the resource prefix "services/specs" (pkg/kubeapiserver).
func serviceKey(prefix, namespace, name string) string {
	return prefix + "/services/specs/" + namespace + "/" + name
}

// ipAddressKey is where an IPAddress is stored: upstream's storage factory
// gives it the default resource prefix, the resource's name without its group.
func ipAddressKey(prefix, ip string) string {
	return prefix + "/ipaddresses/" + ip
}

// TestIPAddressesEncryptionReloaded rotates the encryption key of an apiserver
// that reloads its encryption configuration when the file changes
// (--encryption-provider-config-automatic-reload): the transformer netfork's
// in-process IPAddress writes use is the storage's, so once the apiserver has
// reloaded, a dual-stack Service's IPAddresses (one written in its Service's
// transaction, one alone) carry the new key, as upstream's loopback writes
// would. Those written before keep the old key and read back through the API.
func TestIPAddressesEncryptionReloaded(t *testing.T) {
	poll := encryptionconfigcontroller.EncryptionConfigFileChangePollDuration
	encryptionconfigcontroller.EncryptionConfigFileChangePollDuration = 100 * time.Millisecond
	t.Cleanup(func() { encryptionconfigcontroller.EncryptionConfigFileChangePollDuration = poll })
	ctx := context.Background()
	prefix := framework.NewEtcdPrefix(t)
	key1, key2 := newEncryptionKey(t, "key1"), newEncryptionKey(t, "key2")
	config := filepath.Join(t.TempDir(), "encryption-config.yaml")
	writeEncryptionConfig(t, config, key1)
	s := framework.StartAPIServer(t, framework.WithEtcdPrefix(prefix), framework.WithFlags("--service-cluster-ip-range="+dualStackRanges,
		"--encryption-provider-config="+config, "--encryption-provider-config-automatic-reload=true"))
	defer s.Stop()
	waitKubernetesService(ctx, t, s.Client)
	etcd := etcdClient(t)

	before := createService(ctx, t, s.Client, withFamilies(clusterIPService("before-rotation"), corev1.IPFamilyPolicyRequireDualStack))
	checkServiceEncrypted(ctx, t, etcd, prefix, before, key1)

	// The rotation's first step: key2 encrypts, key1 still decrypts. The apiserver
	// has reloaded once a headless Service (no IPAddress) is stored with key2.
	writeEncryptionConfig(t, config, key2, key1)
	probes := 0
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, wait.ForeverTestTimeout, true, func(ctx context.Context) (bool, error) {
		probes++
		probe := clusterIPService(fmt.Sprintf("reload-probe-%d", probes))
		probe.Spec.ClusterIP = corev1.ClusterIPNone
		createService(ctx, t, s.Client, probe)
		resp, err := etcd.Get(ctx, serviceKey(prefix, metav1.NamespaceDefault, probe.Name))
		if err != nil || len(resp.Kvs) != 1 {
			return false, fmt.Errorf("reading Service %s from etcd: %v (%d keys)", probe.Name, err, len(resp.Kvs))
		}
		return bytes.HasPrefix(resp.Kvs[0].Value, []byte(key2.prefix())), nil
	})
	if err != nil {
		t.Fatalf("the apiserver never stored a Service with %s after its configuration named it first: %v", key2.name, err)
	}

	after := createService(ctx, t, s.Client, withFamilies(clusterIPService("after-rotation"), corev1.IPFamilyPolicyRequireDualStack))
	checkServiceEncrypted(ctx, t, etcd, prefix, after, key2)
	checkServiceEncrypted(ctx, t, etcd, prefix, before, key1)
	for _, svc := range []*corev1.Service{before, after} {
		for _, ip := range svc.Spec.ClusterIPs {
			checkAllocatorIPAddress(t, waitIPAddress(ctx, t, s.Client, ip, svc), svc)
		}
	}
}

// checkServiceEncrypted checks that svc and the IPAddress of each of its
// ClusterIPs are stored under prefix encrypted with key, with neither its name
// nor its addresses in clear.
func checkServiceEncrypted(ctx context.Context, t *testing.T, etcd *clientv3.Client, prefix string, svc *corev1.Service, key encryptionKey) {
	t.Helper()
	checkEncrypted(ctx, t, etcd, serviceKey(prefix, svc.Namespace, svc.Name), key, append([]string{svc.Name}, svc.Spec.ClusterIPs...)...)
	for _, ip := range svc.Spec.ClusterIPs {
		checkEncrypted(ctx, t, etcd, ipAddressKey(prefix, ip), key, ip, svc.Name)
	}
}

// checkEncrypted reads key straight from etcd and checks its value is
// aescbc-encrypted with want and holds none of secrets in clear.
func checkEncrypted(ctx context.Context, t *testing.T, etcd *clientv3.Client, key string, want encryptionKey, secrets ...string) {
	t.Helper()
	resp, err := etcd.Get(ctx, key)
	if err != nil {
		t.Fatalf("reading %s from etcd: %v", key, err)
	}
	if len(resp.Kvs) != 1 {
		t.Errorf("etcd has no key %s", key)
		return
	}
	value := resp.Kvs[0].Value
	if !bytes.HasPrefix(value, []byte(want.prefix())) {
		t.Errorf("%s is not stored with %s: it starts with %q, want %q", key, want.name, prefixOf(value, want), want.prefix())
	}
	for _, c := range secrets {
		if bytes.Contains(value, []byte(c)) {
			t.Errorf("%s holds %q in clear", key, c)
		}
	}
}

// prefixOf is the start of a stored value, as long as want's prefix: enough to tell its encoding.
func prefixOf(value []byte, want encryptionKey) []byte {
	return value[:min(len(value), len(want.prefix()))]
}

// newEncryptionConfig writes an EncryptionConfiguration that encrypts Services
// and IPAddresses with aescbc under a random key, and returns its path and the key.
func newEncryptionConfig(t *testing.T) (string, encryptionKey) {
	t.Helper()
	key := newEncryptionKey(t, "test-key")
	path := filepath.Join(t.TempDir(), "encryption-config.yaml")
	writeEncryptionConfig(t, path, key)
	return path, key
}

// writeEncryptionConfig writes to path an EncryptionConfiguration that encrypts
// Services and IPAddresses with aescbc under keys: the first encrypts, every one
// decrypts.
func writeEncryptionConfig(t *testing.T, path string, keys ...encryptionKey) {
	t.Helper()
	var list strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&list, "      - name: %s\n        secret: %s\n", k.name, k.secret)
	}
	config := `apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
- resources:
  - ipaddresses.networking.k8s.io
  - services
  providers:
  - aescbc:
      keys:
` + list.String() + `  - identity: {}
`
	if err := os.WriteFile(path, []byte(config), 0o600); err != nil {
		t.Fatalf("writing %s: %v", path, err)
	}
}
