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

package tcpproxy

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"
)

// echoServer answers each line with its own name and the line, until the test ends.
func echoServer(t *testing.T, name string) net.Listener {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				s := bufio.NewScanner(c)
				for s.Scan() {
					fmt.Fprintf(c, "%s:%s\n", name, s.Text())
				}
			}()
		}
	}()
	return l
}

// ask sends one line through addr and returns the answer, "" when the proxy closed the connection.
func ask(t *testing.T, addr, line string) string {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	fmt.Fprintln(c, line)
	answer, err := bufio.NewReader(c).ReadString('\n')
	if errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) {
		return "" // Closed by the proxy, with or without the line read.
	}
	if err != nil {
		t.Fatalf("reading through the proxy: %v", err)
	}
	return strings.TrimSpace(answer)
}

func TestProxyRelaysToTheChosenTarget(t *testing.T) {
	a, b := echoServer(t, "a"), echoServer(t, "b")
	target := make(chan string, 1)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := Start(l, func(ctx context.Context) (net.Conn, error) {
		addr := <-target
		if addr == "" {
			return nil, errors.New("no target")
		}
		return (&net.Dialer{}).DialContext(ctx, "tcp", addr)
	})
	defer p.Close()

	target <- a.Addr().String()
	if got := ask(t, p.Addr().String(), "hi"); got != "a:hi" {
		t.Fatalf("got %q, want a's answer", got)
	}
	target <- b.Addr().String()
	if got := ask(t, p.Addr().String(), "ho"); got != "b:ho" {
		t.Fatalf("got %q, want b's answer", got)
	}
	target <- ""
	if got := ask(t, p.Addr().String(), "x"); got != "" {
		t.Fatalf("got %q through a proxy that had no target, want a closed connection", got)
	}
}

func TestCloseEndsRelayedConnections(t *testing.T) {
	a := echoServer(t, "a")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := Start(l, func(ctx context.Context) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "tcp", a.Addr().String())
	})
	c, err := net.Dial("tcp", p.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintln(c, "one")
	r := bufio.NewReader(c)
	if line, err := r.ReadString('\n'); err != nil || line != "a:one\n" {
		t.Fatalf("first answer %q, %v", line, err)
	}
	closed := make(chan struct{})
	go func() { p.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return while a connection was relayed")
	}
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := r.ReadString('\n'); !errors.Is(err, io.EOF) && !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("relayed connection after Close: %v, want EOF", err)
	}
	if _, err := net.DialTimeout("tcp", p.Addr().String(), time.Second); err == nil {
		t.Fatal("the proxy still accepts after Close")
	}
}

func TestCloseToEndsOnlyThatTargetsConnections(t *testing.T) {
	a, b := echoServer(t, "a"), echoServer(t, "b")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	target := make(chan string, 2)
	p := Start(l, func(ctx context.Context) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "tcp", <-target)
	})
	defer p.Close()
	open := func(addr string) *bufio.Reader {
		target <- addr
		c, err := net.Dial("tcp", p.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		fmt.Fprintln(c, "x")
		r := bufio.NewReader(c)
		if _, err := r.ReadString('\n'); err != nil {
			t.Fatal(err)
		}
		_ = c.SetReadDeadline(time.Now().Add(2 * time.Second))
		return r
	}
	toA, toB := open(a.Addr().String()), open(b.Addr().String())
	if n := p.CloseTo(a.Addr().String()); n != 1 {
		t.Fatalf("CloseTo(a) ended %d connections, want 1", n)
	}
	if _, err := toA.ReadString('\n'); !errors.Is(err, io.EOF) && !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("connection to a after CloseTo(a): %v, want it closed", err)
	}
	var netErr net.Error
	if _, err := toB.ReadString('\n'); !errors.As(err, &netErr) || !netErr.Timeout() {
		t.Fatalf("connection to b after CloseTo(a): %v, want it still open (a read timeout)", err)
	}
}
