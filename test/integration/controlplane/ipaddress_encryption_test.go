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
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/netfork/netfork/test/integration/framework"
)

// encryptionKeyName names the test's aescbc key; stored values start with encryptedPrefix.
const (
	encryptionKeyName = "test-key"
	encryptedPrefix   = "k8s:enc:aescbc:v1:" + encryptionKeyName + ":"
)

// TestIPAddressesEncryptedAtRest starts an apiserver that encrypts Services
// and IPAddresses with aescbc. Every Service and IPAddress it stores, those it
// writes together in one transaction included, is encrypted in etcd: each value
// under the two resources' keys starts with the aescbc prefix and holds
// neither the addresses nor the Service's name in clear. Both read back
// through the API as they were created.
func TestIPAddressesEncryptedAtRest(t *testing.T) {
	ctx := context.Background()
	prefix := framework.NewEtcdPrefix(t)
	s := framework.StartAPIServer(t, framework.WithEtcdPrefix(prefix),
		framework.WithFlags("--service-cluster-ip-range="+dualStackRanges, "--encryption-provider-config="+writeEncryptionConfig(t)))
	defer s.Stop()
	waitKubernetesService(ctx, t, s.Client)
	etcd := etcdClient(t)

	for _, svc := range []*corev1.Service{
		clusterIPService("sealed"),
		withFamilies(clusterIPService("sealed-dual"), corev1.IPFamilyPolicyRequireDualStack),
	} {
		created := createService(ctx, t, s.Client, svc)
		checkEncrypted(ctx, t, etcd, serviceKey(prefix, created.Namespace, created.Name), append([]string{created.Name}, created.Spec.ClusterIPs...)...)
		for _, ip := range created.Spec.ClusterIPs {
			checkEncrypted(ctx, t, etcd, ipAddressKey(prefix, ip), ip, created.Name)
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
			if !bytes.HasPrefix(kv.Value, []byte(encryptedPrefix)) {
				t.Errorf("%s is stored unencrypted: it starts with %q, want %q", kv.Key, prefixOf(kv.Value), encryptedPrefix)
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

// checkEncrypted reads key straight from etcd and checks its value is
// aescbc-encrypted with the test's key and holds none of secrets in clear.
func checkEncrypted(ctx context.Context, t *testing.T, etcd *clientv3.Client, key string, secrets ...string) {
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
	if !bytes.HasPrefix(value, []byte(encryptedPrefix)) {
		t.Errorf("%s is stored unencrypted: it starts with %q, want %q", key, prefixOf(value), encryptedPrefix)
	}
	for _, c := range secrets {
		if bytes.Contains(value, []byte(c)) {
			t.Errorf("%s holds %q in clear", key, c)
		}
	}
}

// prefixOf is the start of a stored value, enough to tell its encoding.
func prefixOf(value []byte) []byte {
	return value[:min(len(value), len(encryptedPrefix))]
}

// writeEncryptionConfig writes an EncryptionConfiguration that encrypts
// Services and IPAddresses with aescbc under a random key, and returns its path.
func writeEncryptionConfig(t *testing.T) string {
	t.Helper()
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		t.Fatalf("making an encryption key: %v", err)
	}
	config := fmt.Sprintf(`apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
- resources:
  - ipaddresses.networking.k8s.io
  - services
  providers:
  - aescbc:
      keys:
      - name: %s
        secret: %s
  - identity: {}
`, encryptionKeyName, base64.StdEncoding.EncodeToString(key))
	path := filepath.Join(t.TempDir(), "encryption-config.yaml")
	if err := os.WriteFile(path, []byte(config), 0o600); err != nil {
		t.Fatalf("writing %s: %v", path, err)
	}
	return path
}
