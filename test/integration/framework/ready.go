package framework

import (
	"context"
	"testing"
	"time"
)

// readyTimeout bounds an apiserver's start; a cold 2-core machine needs tens of seconds.
const readyTimeout = 2 * time.Minute

// exitStatus records how a server's run ended; err is set before done closes.
type exitStatus struct {
	done chan struct{}
	err  error
}

func (e *exitStatus) exit(err error) {
	e.err = err
	close(e.done)
}

// waitReady polls /readyz until it passes, failing early when the server exits.
func waitReady(t testing.TB, s *APIServer, run *exitStatus) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	var lastErr error
	for {
		body, err := s.Client.Discovery().RESTClient().Get().AbsPath("/readyz").Param("verbose", "true").DoRaw(ctx)
		if err == nil {
			return
		}
		lastErr = err
		select {
		case <-run.done:
			t.Fatalf("framework: apiserver at %s exited before it was ready: %v", s.Config.Host, run.err)
		case <-ctx.Done():
			t.Fatalf("framework: apiserver at %s not ready after %s: %v\n%s", s.Config.Host, readyTimeout, lastErr, body)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
