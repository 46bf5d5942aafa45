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

package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:])
}

// writeArchive writes a docker save archive (docker 20.10's layout) holding files in order.
func writeArchive(t *testing.T, files [][2]string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "image.tar")
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range files {
		if err := tw.WriteHeader(&tar.Header{Name: f[0], Mode: 0o644, Size: int64(len(f[1])), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(f[1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// testImage is an image of two layers, the second gzipped, tagged under registry.k8s.io twice
// and under another domain once.
type testImage struct {
	config, layer1, layer2 []byte
	archive                string
}

func newTestImage(t *testing.T) testImage {
	t.Helper()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write(bytes.Repeat([]byte("layer two "), 1000))
	_ = zw.Close()
	img := testImage{
		config: []byte(`{"architecture":"amd64","os":"linux","rootfs":{"type":"layers"}}`),
		layer1: bytes.Repeat([]byte("layer one "), 5000),
		layer2: gz.Bytes(),
	}
	manifestJSON := `[{"Config":"cfg.json","RepoTags":["registry.k8s.io/e2e-test-images/agnhost:2.66.1",` +
		`"registry.k8s.io/e2e-test-images/agnhost:2.55","docker.io/library/other:1"],"Layers":["a/layer.tar","./b/layer.tar"]}]`
	img.archive = writeArchive(t, [][2]string{
		{"a/layer.tar", string(img.layer1)},
		{"b/layer.tar", string(img.layer2)},
		{"cfg.json", string(img.config)},
		{"manifest.json", manifestJSON},
	})
	return img
}

func serve(t *testing.T, archives ...string) *httptest.Server {
	t.Helper()
	r := newRegistry("registry.k8s.io")
	for _, a := range archives {
		if err := r.load(a); err != nil {
			t.Fatal(err)
		}
	}
	s := httptest.NewServer(r)
	t.Cleanup(s.Close)
	return s
}

func get(t *testing.T, method, url string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

func TestServesManifestsAndBlobsAsTheArchiveHoldsThem(t *testing.T) {
	img := newTestImage(t)
	s := serve(t, img.archive)

	resp, _ := get(t, http.MethodGet, s.URL+"/v2/")
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Docker-Distribution-Api-Version") != "registry/2.0" {
		t.Fatalf("/v2/: %d, api version %q", resp.StatusCode, resp.Header.Get("Docker-Distribution-Api-Version"))
	}

	resp, body := get(t, http.MethodGet, s.URL+"/v2/e2e-test-images/agnhost/manifests/2.66.1")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("manifest by tag: %d %s", resp.StatusCode, body)
	}
	if got := resp.Header.Get("Content-Type"); got != mediaTypeManifest {
		t.Errorf("manifest Content-Type %q, want %q", got, mediaTypeManifest)
	}
	if got := resp.Header.Get("Docker-Content-Digest"); got != sha(body) {
		t.Errorf("Docker-Content-Digest %q, want the body's %q", got, sha(body))
	}
	var m manifest
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	want := manifest{SchemaVersion: 2, MediaType: mediaTypeManifest,
		Config: descriptor{MediaType: mediaTypeConfig, Digest: sha(img.config), Size: int64(len(img.config))},
		Layers: []descriptor{
			{MediaType: mediaTypeLayer, Digest: sha(img.layer1), Size: int64(len(img.layer1))},
			{MediaType: mediaTypeLayerGz, Digest: sha(img.layer2), Size: int64(len(img.layer2))},
		}}
	gotJSON, _ := json.Marshal(m)
	wantJSON, _ := json.Marshal(want)
	if !bytes.Equal(gotJSON, wantJSON) {
		t.Errorf("manifest\n got %s\nwant %s", gotJSON, wantJSON)
	}

	// the other tag and the digest name the same manifest
	for _, ref := range []string{"2.55", sha(body)} {
		resp, again := get(t, http.MethodGet, s.URL+"/v2/e2e-test-images/agnhost/manifests/"+ref)
		if resp.StatusCode != http.StatusOK || !bytes.Equal(again, body) {
			t.Errorf("manifest %s: %d, same body %v", ref, resp.StatusCode, bytes.Equal(again, body))
		}
	}

	for _, b := range [][]byte{img.config, img.layer1, img.layer2} {
		resp, got := get(t, http.MethodGet, s.URL+"/v2/e2e-test-images/agnhost/blobs/"+sha(b))
		if resp.StatusCode != http.StatusOK || !bytes.Equal(got, b) {
			t.Errorf("blob %s: %d, %d bytes, want %d identical bytes", sha(b), resp.StatusCode, len(got), len(b))
		}
		if resp.Header.Get("Docker-Content-Digest") != sha(b) {
			t.Errorf("blob %s: Docker-Content-Digest %q", sha(b), resp.Header.Get("Docker-Content-Digest"))
		}
		resp, got = get(t, http.MethodHead, s.URL+"/v2/e2e-test-images/agnhost/blobs/"+sha(b))
		if resp.StatusCode != http.StatusOK || len(got) != 0 || resp.ContentLength != int64(len(b)) {
			t.Errorf("HEAD blob %s: %d, body %d bytes, Content-Length %d, want %d", sha(b), resp.StatusCode, len(got), resp.ContentLength, len(b))
		}
	}
}

func TestRefusesWhatItDoesNotServe(t *testing.T) {
	img := newTestImage(t)
	s := serve(t, img.archive)
	for _, c := range []struct {
		method, path string
		status       int
		code         string
	}{
		{http.MethodGet, "/v2/e2e-test-images/agnhost/manifests/9.9", http.StatusNotFound, "MANIFEST_UNKNOWN"},
		{http.MethodGet, "/v2/e2e-test-images/agnhost/manifests/" + sha([]byte("no")), http.StatusNotFound, "MANIFEST_UNKNOWN"},
		{http.MethodGet, "/v2/e2e-test-images/agnhost/blobs/" + sha([]byte("no")), http.StatusNotFound, "BLOB_UNKNOWN"},
		// a tag of another domain is not this registry's
		{http.MethodGet, "/v2/library/other/manifests/1", http.StatusNotFound, "NAME_UNKNOWN"},
		{http.MethodGet, "/v2/e2e-test-images/nginx/manifests/1.27.0-2", http.StatusNotFound, "NAME_UNKNOWN"},
		{http.MethodPut, "/v2/e2e-test-images/agnhost/manifests/2.66.1", http.StatusMethodNotAllowed, "UNSUPPORTED"},
		{http.MethodPost, "/v2/e2e-test-images/agnhost/blobs/uploads/", http.StatusMethodNotAllowed, "UNSUPPORTED"},
	} {
		resp, body := get(t, c.method, s.URL+c.path)
		var e struct{ Errors []struct{ Code string } }
		_ = json.Unmarshal(body, &e)
		if resp.StatusCode != c.status || len(e.Errors) != 1 || e.Errors[0].Code != c.code {
			t.Errorf("%s %s: %d %s, want %d %s", c.method, c.path, resp.StatusCode, strings.TrimSpace(string(body)), c.status, c.code)
		}
	}
}

func TestBadArchivesAreNamed(t *testing.T) {
	notTar := filepath.Join(t.TempDir(), "x.tar")
	if err := os.WriteFile(notTar, bytes.Repeat([]byte("x"), 1024), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		archive string
		want    string
	}{
		"no layer": {writeArchive(t, [][2]string{{"cfg.json", "{}"},
			{"manifest.json", `[{"Config":"cfg.json","RepoTags":["registry.k8s.io/a:1"],"Layers":["gone/layer.tar"]}]`}}),
			"names layer gone/layer.tar, which the archive does not hold"},
		"no config": {writeArchive(t, [][2]string{
			{"manifest.json", `[{"Config":"cfg.json","RepoTags":["registry.k8s.io/a:1"],"Layers":[]}]`}}),
			"names config cfg.json, which the archive does not hold"},
		"no manifest.json": {writeArchive(t, [][2]string{{"cfg.json", "{}"}}), "no manifest.json"},
		"not tar":          {notTar, "not a tar archive"},
	} {
		err := newRegistry("registry.k8s.io").load(c.archive)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.archive) {
			t.Errorf("%s: error %v, want one naming %s and %q", name, err, c.archive, c.want)
		}
	}
}

func TestRunRefusesBadInputInOneLine(t *testing.T) {
	other := writeArchive(t, [][2]string{{"cfg.json", "{}"},
		{"manifest.json", `[{"Config":"cfg.json","RepoTags":["docker.io/library/a:1"],"Layers":[]}]`}})
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "no archive given"},
		{[]string{other}, "the archives hold no tag under registry.k8s.io/"},
		{[]string{filepath.Join(t.TempDir(), "missing.tar")}, "missing.tar: no such file"},
	} {
		var stderr bytes.Buffer
		if code := run(c.args, &stderr); code != 2 || !strings.Contains(stderr.String(), c.want) || strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("run %v: exit %d, stderr %q, want 2 and one line with %q", c.args, code, stderr.String(), c.want)
		}
	}
}
