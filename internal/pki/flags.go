package pki

// ServiceAccountIssuer is the issuer local control planes sign service-account tokens as.
const ServiceAccountIssuer = "https://kubernetes.default.svc.cluster.local"

// APIServerFlags are the kube-apiserver flags that point it at these files:
// client CA, serving pair and service-account keys, so every tool that starts
// an apiserver on this PKI (local-up, the test framework, the benchmark) passes
// the same ones.
func (p Paths) APIServerFlags() []string {
	return []string{
		"--client-ca-file=" + p.CACert,
		"--tls-cert-file=" + p.ServingCert,
		"--tls-private-key-file=" + p.ServingKey,
		"--service-account-key-file=" + p.ServiceAccountPublicKey,
		"--service-account-signing-key-file=" + p.ServiceAccountKey,
		"--service-account-issuer=" + ServiceAccountIssuer,
	}
}
