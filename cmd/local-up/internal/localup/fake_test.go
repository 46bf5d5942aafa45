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

package localup

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fakeEnv makes the test binary act as a kube-apiserver: fakeAPIServer's script sets it.
const fakeEnv = "NETFORK_LOCALUP_FAKE_APISERVER"

func TestMain(m *testing.M) {
	if os.Getenv(fakeEnv) != "" {
		os.Exit(fakeMain(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// fakeMain stands in for kube-apiserver: --version prints a version (and a klog line on
// stderr, as a GA gate warning does), a gate named Bad is rejected the way kube-apiserver
// rejects unknown gates, --fake-crash exits at once with a klog error, and otherwise it
// serves /readyz with the TLS files it is given until SIGTERM.
func fakeMain(args []string) int {
	for _, a := range args {
		if strings.HasPrefix(a, "--feature-gates=Bad") {
			fmt.Fprintln(os.Stderr, "I1121 started")
			fmt.Fprintln(os.Stderr, `Error: invalid argument "Bad=true" for "--feature-gates" flag: unrecognized feature gate: Bad`)
			return 1
		}
	}
	if slices.Contains(args, "--version") {
		fmt.Fprintln(os.Stderr, `I1124 07:48:19.308416 1 feature_gate.go:477] "Warning: setting GA feature gate."`)
		fmt.Println("Kubernetes v1.37.1-fake")
		return 0
	}
	for _, a := range args {
		if a == "--fake-crash" {
			fmt.Fprintln(os.Stderr, `E1124 07:48:19.308416 1 server.go:1] "fake crash" err="asked to"`)
			return 1
		}
	}
	ep, err := endpoint(args)
	if err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		return 1
	}
	cert, _ := flagValue(args, "tls-cert-file")
	key, _ := flagValue(args, "tls-private-key-file")
	pair, err := tls.LoadX509KeyPair(cert, key)
	if err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		return 1
	}
	ln, err := tls.Listen("tcp", ep, &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12})
	if err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		return 1
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "ok") })
	mux.HandleFunc("/whoami", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, ep) })
	// /watch streams until the client goes, as a watch does; a graceful shutdown waits for it.
	mux.HandleFunc("/watch", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, ep)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	server := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	terms := make(chan os.Signal, 1)
	signal.Notify(terms, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		<-terms
		_ = server.Shutdown(context.Background()) // Waits for /watch streams, like an apiserver.
		close(done)
	}()
	_ = server.Serve(ln) // Returns once SIGTERM starts the shutdown.
	<-done
	return 0
}

// fakeAPIServer writes a script standing in for kube-apiserver that runs fakeMain.
func fakeAPIServer(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "kube-apiserver")
	script := fmt.Sprintf("#!/bin/sh\n%s=1 exec %q \"$@\"\n", fakeEnv, exe)
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// loopbackAvailable tells whether 127.0.0.254 can be bound, which the front needs.
func loopbackAvailable(t *testing.T, ip string) {
	t.Helper()
	l, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		t.Skipf("cannot bind %s (%v): this test needs 127.0.0.0/8 on loopback", ip, err)
	}
	l.Close()
}
