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
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilnet "k8s.io/apimachinery/pkg/util/net"

	"github.com/netfork/netfork/test/internal/clustercheck"
)

// transportErrorsPerStop is how many of the load's requests may fail in transport for each
// apiserver a step stops: each worker has one request in flight, and a stop breaks the
// connection that carries it at most once.
const transportErrorsPerStop = loadWorkers

// errorKind is how the load row groups failed requests.
type errorKind struct {
	// name is "HTTP 500 InternalError", "transport: EOF", "other: ...".
	name string
	// transport marks a broken or refused connection, which a stopping apiserver may cause.
	transport bool
}

// upstreamLoopbackLost matches upstream's answer to a Service create whose dynamic ClusterIP
// it could not write because its own loopback request for the IPAddress failed in transport,
// as it does while the apiserver stops (its listener closed, the request still in flight):
// upstream answers any allocation error but a full range with 422 Invalid (kubernetes/kubernetes#118921),
// and client-go spells a transport failure `Post "<url>": <cause>`. netfork writes
// IPAddresses to storage, not through a loopback client, so no netfork answer matches.
var upstreamLoopbackLost = regexp.MustCompile(`failed to allocate IP: Post "[^"]*/apis/networking\.k8s\.io/v1/ipaddresses[^"]*": `)

// classify names err's kind: an API status by code and reason, a transport error by what
// broke, anything else by its first words.
func classify(err error) errorKind {
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		s := status.Status()
		if s.Code == http.StatusUnprocessableEntity && upstreamLoopbackLost.MatchString(s.Message) {
			return errorKind{name: "HTTP 422 Invalid: upstream's loopback IPAddress create lost its connection", transport: true}
		}
		return errorKind{name: fmt.Sprintf("HTTP %d %s", s.Code, s.Reason)}
	}
	switch {
	case utilnet.IsConnectionRefused(err):
		return errorKind{name: "transport: connection refused", transport: true}
	case utilnet.IsConnectionReset(err):
		return errorKind{name: "transport: connection reset", transport: true}
	case utilnet.IsHTTP2ConnectionLost(err):
		return errorKind{name: "transport: HTTP/2 connection lost", transport: true}
	case utilnet.IsProbableEOF(err):
		return errorKind{name: "transport: EOF or closed connection", transport: true}
	}
	msg := err.Error()
	if len(msg) > 60 {
		msg = msg[:60]
	}
	return errorKind{name: "other: " + msg}
}

// loadCounts are the load's operations and failures since the last take.
type loadCounts struct {
	ops    int
	byKind map[errorKind]int
	// firstMessage is the message of each kind's first failure, so a failed row says
	// what the apiserver answered and not only its status code.
	firstMessage map[errorKind]string
}

// maxMessage bounds the length of a failure's message in the load row.
const maxMessage = 300

// add counts a failure of kind k whose error says msg.
func (c *loadCounts) add(k errorKind, msg string) {
	c.byKind[k]++
	if _, ok := c.firstMessage[k]; ok || k.transport {
		return
	}
	if len(msg) > maxMessage {
		msg = msg[:maxMessage] + "..."
	}
	c.firstMessage[k] = msg
}

// newLoadCounts are counts of no operation.
func newLoadCounts() loadCounts {
	return loadCounts{byKind: map[errorKind]int{}, firstMessage: map[errorKind]string{}}
}

// loadRow judges a step's load: no request may fail but in transport, and those at most
// transportErrorsPerStop for each of the stops apiservers the step stopped.
func loadRow(c loadCounts, stops int) clustercheck.Row {
	failed, transport, other := 0, 0, 0
	var kinds []string
	for k, n := range c.byKind {
		failed += n
		if k.transport {
			transport += n
		} else {
			other += n
		}
		kind := fmt.Sprintf("%dx %s", n, k.name)
		if msg, ok := c.firstMessage[k]; ok {
			kind += fmt.Sprintf(" (first: %q)", msg)
		}
		kinds = append(kinds, kind)
	}
	sort.Strings(kinds)
	allowed := stops * transportErrorsPerStop
	detail := fmt.Sprintf("%d creates/deletes, %d failed", c.ops, failed)
	if len(kinds) > 0 {
		detail += " (" + strings.Join(kinds, ", ") + ")"
	}
	detail += fmt.Sprintf("; allowed: transport errors only, at most %d per stopped apiserver (%d stopped)", transportErrorsPerStop, stops)
	row := clustercheck.Row{Check: "load", Status: "ok", Detail: detail}
	if other > 0 || transport > allowed {
		row.Status = "FAIL"
	}
	return row
}
