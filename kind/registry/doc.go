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

// Command registry serves the images in docker save archives (the archives kind writes
// for the test images) over the read-only part of the OCI distribution API: GET and HEAD of
// /v2/, /v2/NAME/manifests/TAG-OR-DIGEST and /v2/NAME/blobs/DIGEST. conformance.sh runs it
// in a cluster's docker network as the registry.k8s.io mirror of every node's containerd, so
// that a spec that pulls with imagePullPolicy Always gets the image it already has without
// leaving the machine.
//
//	registry [--listen ADDR] [--domain DOMAIN] ARCHIVE...
//
// Every tag under DOMAIN/ (default registry.k8s.io) in an archive's manifest.json is served
// as NAME:TAG, NAME being the rest of the reference (e2e-test-images/agnhost), with an OCI
// image manifest made for it. Its config and layers are served from the archive as they are,
// each layer with the media type its first bytes show (tar, or tar+gzip), so an uncompressed
// layer's digest is its diff ID. Tags under other domains are left out; a malformed archive
// or one that names a file it does not hold stops the program with one line naming both.
package main
