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

// Package pki creates, or loads when already present, the certificates and keys a local
// control plane needs (a CA, the apiserver serving cert, the service-account key pair and
// an admin client cert) as PEM files in one directory, so restarting keeps credentials
// that kubeconfigs and service-account tokens already depend on.
package pki
