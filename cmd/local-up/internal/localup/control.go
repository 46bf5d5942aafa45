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
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"
)

// controlServer serves the subcommands (status, stop, start, restart, replace) on a unix
// socket in the data dir, as JSON over HTTP; only the socket's owner (root, or the user
// who runs local-up) can connect.
type controlServer struct {
	ln     net.Listener
	server *http.Server
	path   string
}

// controlResponse is every answer: a message on success, an error otherwise.
type controlResponse struct {
	Message string         `json:"message,omitempty"`
	Error   string         `json:"error,omitempty"`
	Status  []memberStatus `json:"status,omitempty"`
}

// serveControl listens on path, replacing a socket a killed local-up left behind.
func serveControl(ctx context.Context, path string, c *cluster) (*controlServer, error) {
	if err := removeStaleSocket(path); err != nil {
		return nil, err
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("control socket: %w", err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("control socket: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /status", func(w http.ResponseWriter, _ *http.Request) {
		reply(w, controlResponse{Status: c.status()}, nil)
	})
	indexed := func(op func(context.Context, int) (string, error)) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			i, err := strconv.Atoi(r.URL.Query().Get("index"))
			if err != nil {
				reply(w, controlResponse{}, fmt.Errorf("index %q is not a number", r.URL.Query().Get("index")))
				return
			}
			msg, err := op(ctx, i)
			reply(w, controlResponse{Message: msg}, err)
		}
	}
	mux.HandleFunc("POST /stop", indexed(func(_ context.Context, i int) (string, error) { return c.stopOne(i) }))
	mux.HandleFunc("POST /start", indexed(c.startOne))
	mux.HandleFunc("POST /restart", indexed(c.restartOne))
	mux.HandleFunc("POST /replace", func(w http.ResponseWriter, r *http.Request) {
		var req replaceRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			reply(w, controlResponse{}, fmt.Errorf("decoding the replace request: %w", err))
			return
		}
		msg, err := c.replaceOne(ctx, req)
		reply(w, controlResponse{Message: msg}, err)
	})
	s := &controlServer{ln: ln, server: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}, path: path}
	go func() { _ = s.server.Serve(ln) }() // Serve returns once close shuts it down.
	return s, nil
}

// close stops serving and removes the socket.
func (s *controlServer) close() {
	_ = s.server.Close()
	_ = os.Remove(s.path)
}

// reply writes resp, or err with status 409 (the request could not be carried out).
func reply(w http.ResponseWriter, resp controlResponse, err error) {
	w.Header().Set("Content-Type", "application/json")
	if err != nil {
		resp = controlResponse{Error: err.Error()}
		w.WriteHeader(http.StatusConflict)
	}
	_ = json.NewEncoder(w).Encode(resp) // The client may have gone; nothing to do then.
}

// removeStaleSocket removes a socket nobody answers on; one that answers belongs to a
// local-up still running on this data dir.
func removeStaleSocket(path string) error {
	conn, err := net.DialTimeout("unix", path, time.Second)
	if err == nil {
		conn.Close()
		return fmt.Errorf("another local-up is running on this data dir (it answers on %s): stop it first", path)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("control socket: %w", err)
	}
	return nil
}
