package localup

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/netfork/netfork/internal/pki"
)

const (
	// readyPollInterval is short because a cold apiserver becomes ready in a few seconds.
	readyPollInterval = 250 * time.Millisecond
	// readyRequestTimeout bounds one /readyz request.
	readyRequestTimeout = 2 * time.Second
)

// readyClient talks to the apiservers as the admin, trusting only the local CA.
func readyClient(p *pki.PKI) (*http.Client, error) {
	admin, err := tls.LoadX509KeyPair(p.AdminCert, p.AdminKey)
	if err != nil {
		return nil, fmt.Errorf("loading the admin cert: %w", err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(p.CA)
	return &http.Client{
		Timeout: readyRequestTimeout,
		Transport: &http.Transport{
			TLSClientConfig: &tls.Config{RootCAs: roots, Certificates: []tls.Certificate{admin}, MinVersion: tls.VersionTLS12},
		},
	}, nil
}

// waitReady polls every child's /readyz until all return 200, a child exits, the timeout
// passes or ctx ends.
func waitReady(ctx context.Context, client *http.Client, children []*child, endpoints []string, timeout time.Duration, exited <-chan *child) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	ticker := time.NewTicker(readyPollInterval)
	defer ticker.Stop()
	last := make([]string, len(children))
	pending := map[int]bool{}
	for i := range children {
		pending[i] = true
	}
	for len(pending) > 0 {
		for i := range pending {
			if last[i] = probe(ctx, client, endpoints[i]); last[i] == "" {
				delete(pending, i)
			}
		}
		if len(pending) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case c := <-exited:
			return c.exitError()
		case <-deadline.C:
			for i := range pending {
				return fmt.Errorf("%s not ready after %s: /readyz: %s (log: %s)", children[i].name, timeout, last[i], children[i].logPath)
			}
		case <-ticker.C:
		}
	}
	return nil
}

// probe asks one apiserver for /readyz and returns "" when it is ready, else why not.
func probe(ctx context.Context, client *http.Client, hostPort string) string {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://"+hostPort+"/readyz", nil)
	if err != nil {
		return err.Error()
	}
	resp, err := client.Do(req)
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	if resp.StatusCode == http.StatusOK {
		return ""
	}
	return fmt.Sprintf("%s: %s", resp.Status, lastFailedCheck(string(body)))
}

// lastFailedCheck summarizes a failed /readyz body by its failed checks, e.g.
// "[-]poststarthook/rbac/bootstrap-roles failed: reason withheld".
func lastFailedCheck(body string) string {
	var failed []string
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(line, "[-]") {
			failed = append(failed, strings.TrimSpace(line))
		}
	}
	if len(failed) == 0 {
		return firstLine(body)
	}
	return strings.Join(failed, ", ")
}
