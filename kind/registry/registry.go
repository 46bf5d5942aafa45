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
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"sort"
	"strings"
	"time"
)

// Media types of what the registry serves.
const (
	mediaTypeManifest = "application/vnd.oci.image.manifest.v1+json"
	mediaTypeConfig   = "application/vnd.oci.image.config.v1+json"
	mediaTypeLayer    = "application/vnd.oci.image.layer.v1.tar"
	mediaTypeLayerGz  = "application/vnd.oci.image.layer.v1.tar+gzip"
)

// maxJSON bounds what is read into memory from an archive: manifest.json and configs.
const maxJSON = 16 << 20

// blob is a file inside an archive, served as it is.
type blob struct {
	archive   string
	off, size int64
	digest    string
	gzip      bool
	data      []byte // the file's content when it is JSON (manifest.json, a config)
}

// repository holds one name's tags, manifests and the blobs those manifests reference.
type repository struct {
	tags      map[string]string // tag → manifest digest
	manifests map[string][]byte // manifest digest → manifest
	blobs     map[string]blob   // digest → blob
}

// registry is an http.Handler over the repositories of every loaded archive.
type registry struct {
	domain string
	repos  map[string]*repository
}

func newRegistry(domain string) *registry {
	return &registry{domain: domain, repos: map[string]*repository{}}
}

type descriptor struct {
	MediaType string `json:"mediaType"`
	Digest    string `json:"digest"`
	Size      int64  `json:"size"`
}

type manifest struct {
	SchemaVersion int          `json:"schemaVersion"`
	MediaType     string       `json:"mediaType"`
	Config        descriptor   `json:"config"`
	Layers        []descriptor `json:"layers"`
}

// countingReader counts the bytes read through it, so that after tar.Reader.Next the count
// is the offset of the entry's data in the archive.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// load adds the images of the docker save archive at file: every regular file is hashed and
// located, then manifest.json's entries are turned into manifests.
func (r *registry) load(file string) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	cr := &countingReader{r: f}
	tr := tar.NewReader(cr)
	files := map[string]blob{}
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("%s: not a tar archive: %w", file, err)
		}
		if hdr.Typeflag != tar.TypeReg {
			continue
		}
		b := blob{archive: file, off: cr.n, size: hdr.Size}
		// keep what may be JSON (manifest.json, a config: *.json, or blobs/ in an OCI
		// layout archive) when it is small, else the two bytes that show gzip
		keep := hdr.Size <= maxJSON && (strings.HasSuffix(hdr.Name, ".json") || strings.HasPrefix(path.Clean(hdr.Name), "blobs/"))
		var head bytes.Buffer
		limit := int64(2)
		if keep {
			limit = hdr.Size
		}
		h := sha256.New()
		if _, err := io.Copy(io.MultiWriter(h, &prefixWriter{buf: &head, max: limit}), tr); err != nil {
			return fmt.Errorf("%s: reading %s: %w", file, hdr.Name, err)
		}
		b.digest = "sha256:" + hex.EncodeToString(h.Sum(nil))
		b.gzip = bytes.HasPrefix(head.Bytes(), []byte{0x1f, 0x8b})
		if keep {
			b.data = head.Bytes()
		}
		files[path.Clean(hdr.Name)] = b
	}
	mf, ok := files["manifest.json"]
	if !ok || mf.data == nil {
		return fmt.Errorf("%s: no manifest.json: not a docker save archive", file)
	}
	var entries []struct {
		Config   string
		RepoTags []string
		Layers   []string
	}
	if err := json.Unmarshal(mf.data, &entries); err != nil {
		return fmt.Errorf("%s: manifest.json: %w", file, err)
	}
	for _, e := range entries {
		config, ok := files[path.Clean(e.Config)]
		if !ok {
			return fmt.Errorf("%s: manifest.json names config %s, which the archive does not hold", file, e.Config)
		}
		m := manifest{SchemaVersion: 2, MediaType: mediaTypeManifest,
			Config: descriptor{MediaType: mediaTypeConfig, Digest: config.digest, Size: config.size}, Layers: []descriptor{}}
		blobs := map[string]blob{config.digest: config}
		for _, l := range e.Layers {
			layer, ok := files[path.Clean(l)]
			if !ok {
				return fmt.Errorf("%s: manifest.json names layer %s, which the archive does not hold", file, l)
			}
			mt := mediaTypeLayer
			if layer.gzip {
				mt = mediaTypeLayerGz
			}
			m.Layers = append(m.Layers, descriptor{MediaType: mt, Digest: layer.digest, Size: layer.size})
			blobs[layer.digest] = layer
		}
		body, err := json.Marshal(m)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(body)
		digest := "sha256:" + hex.EncodeToString(sum[:])
		for _, ref := range e.RepoTags {
			name, tag, ok := r.split(ref)
			if !ok {
				continue
			}
			repo := r.repos[name]
			if repo == nil {
				repo = &repository{tags: map[string]string{}, manifests: map[string][]byte{}, blobs: map[string]blob{}}
				r.repos[name] = repo
			}
			repo.tags[tag] = digest
			repo.manifests[digest] = body
			for d, b := range blobs {
				b.data = nil
				repo.blobs[d] = b
			}
		}
	}
	return nil
}

// split turns DOMAIN/NAME:TAG into NAME and TAG; other references are not this registry's.
func (r *registry) split(ref string) (name, tag string, ok bool) {
	rest, ok := strings.CutPrefix(ref, r.domain+"/")
	if !ok {
		return "", "", false
	}
	i := strings.LastIndex(rest, ":")
	if i <= 0 {
		return "", "", false
	}
	return rest[:i], rest[i+1:], true
}

// prefixWriter keeps the first max bytes written through it.
type prefixWriter struct {
	buf *bytes.Buffer
	max int64
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	if n := p.max - int64(p.buf.Len()); n > 0 {
		p.buf.Write(b[:min(n, int64(len(b)))])
	}
	return len(b), nil
}

// tags lists NAME:TAG for every tag served, sorted.
func (r *registry) tags() []string {
	var out []string
	for name, repo := range r.repos {
		for tag := range repo.tags {
			out = append(out, name+":"+tag)
		}
	}
	sort.Strings(out)
	return out
}

func (r *registry) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	w.Header().Set("Docker-Distribution-Api-Version", "registry/2.0")
	if req.Method != http.MethodGet && req.Method != http.MethodHead {
		apiError(w, http.StatusMethodNotAllowed, "UNSUPPORTED", req.Method+" is not supported: this registry is read-only")
		return
	}
	p := req.URL.Path
	if p == "/v2/" || p == "/v2" {
		w.Header().Set("Content-Type", "application/json")
		http.ServeContent(w, req, "", time.Time{}, strings.NewReader("{}"))
		return
	}
	rest, ok := strings.CutPrefix(p, "/v2/")
	if !ok {
		http.NotFound(w, req)
		return
	}
	for _, kind := range []string{"/manifests/", "/blobs/"} {
		i := strings.LastIndex(rest, kind)
		if i <= 0 {
			continue
		}
		name, ref := rest[:i], rest[i+len(kind):]
		repo := r.repos[name]
		if repo == nil {
			apiError(w, http.StatusNotFound, "NAME_UNKNOWN", "repository "+name+" is not served")
			return
		}
		if kind == "/manifests/" {
			r.serveManifest(w, req, repo, name, ref)
		} else {
			r.serveBlob(w, req, repo, name, ref)
		}
		return
	}
	http.NotFound(w, req)
}

func (r *registry) serveManifest(w http.ResponseWriter, req *http.Request, repo *repository, name, ref string) {
	digest := ref
	if !strings.HasPrefix(ref, "sha256:") {
		digest = repo.tags[ref]
	}
	body, ok := repo.manifests[digest]
	if !ok {
		apiError(w, http.StatusNotFound, "MANIFEST_UNKNOWN", "manifest "+name+":"+ref+" is not served")
		return
	}
	w.Header().Set("Content-Type", mediaTypeManifest)
	w.Header().Set("Docker-Content-Digest", digest)
	http.ServeContent(w, req, "", time.Time{}, bytes.NewReader(body))
}

func (r *registry) serveBlob(w http.ResponseWriter, req *http.Request, repo *repository, name, digest string) {
	b, ok := repo.blobs[digest]
	if !ok {
		apiError(w, http.StatusNotFound, "BLOB_UNKNOWN", "blob "+digest+" is not in "+name)
		return
	}
	f, err := os.Open(b.archive)
	if err != nil {
		apiError(w, http.StatusInternalServerError, "UNKNOWN", err.Error())
		return
	}
	defer f.Close()
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Docker-Content-Digest", b.digest)
	http.ServeContent(w, req, "", time.Time{}, io.NewSectionReader(f, b.off, b.size))
}

// apiError writes the distribution API's error body.
func apiError(w http.ResponseWriter, status int, code, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"errors": []map[string]string{{"code": code, "message": message}}})
}
