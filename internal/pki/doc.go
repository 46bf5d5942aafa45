// Package pki creates, or loads when already present, the certificates and keys a local
// control plane needs (a CA, the apiserver serving cert, the service-account key pair and
// an admin client cert) as PEM files in one directory, so restarting keeps credentials
// that kubeconfigs and service-account tokens already depend on.
package pki
