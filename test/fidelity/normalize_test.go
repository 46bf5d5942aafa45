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

package fidelity

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// record is one thing one observer saw: key says which (observer, step, what), value what
// it saw, as JSON would hold it. Both are normalized together, in the order seen.
type record struct {
	key   []string
	value any
	// once drops the record when one with the same normalized key came before, instead of
	// numbering it: for lines whose count varies by run.
	once bool
}

// leaves are a normalized record's scalar values by their path ("spec.clusterIPs[0]").
type leaves map[string]string

var (
	timeRe     = regexp.MustCompile(`\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?`)
	uuidRe     = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	ipv4Re     = regexp.MustCompile(`\b\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}\b`)
	ipv6Re     = regexp.MustCompile(`[0-9a-fA-F]{0,4}(?::[0-9a-fA-F]{0,4}){2,7}`)
	durationRe = regexp.MustCompile(`\b(\d+(\.\d+)?(h|ns|µs|us|ms|s|m))+\b`)
	// portRe is a port after a normalized address: the apiserver's and the recording
	// webhook's are new in every test, the same in both runs of one.
	portRe = regexp.MustCompile(`(<ip-\d+>):\d{1,5}\b`)
	// commitRe is the git commit in a user agent; upstream's binary is stamped with netfork's.
	commitRe = regexp.MustCompile(`kubernetes/[0-9a-f]{7,40}\b`)
)

// byField are the fields whose whole value differs by run: resource versions, and the
// client certificate local-up made for the run's admin.
var byField = map[string]string{
	"resourceVersion": "<rv>",
	"authentication.kubernetes.io/credential-id": "<credential-id>",
}

// normalizer replaces what differs between any two runs (addresses, UIDs, times,
// resource versions, durations) by placeholders. Addresses and UIDs get a stable name in
// order of first appearance, so equal values stay equal: the address of the first
// Service created is <ip-1> in both runs, and an object's UID is named after the object.
type normalizer struct {
	names map[string]string
	count map[string]int
}

func newNormalizer() *normalizer {
	return &normalizer{names: map[string]string{}, count: map[string]int{}}
}

// normalize flattens records into leaves keyed by their normalized key, in order; a key
// seen again gets a "#N" suffix, or with once is dropped.
func normalize(records []record) (keys []string, values map[string]leaves) {
	n := newNormalizer()
	values = map[string]leaves{}
	seen := map[string]int{}
	for _, r := range records {
		parts := make([]string, len(r.key))
		for i, p := range r.key {
			parts[i] = n.str(p)
		}
		key := strings.Join(parts, " | ")
		if seen[key]++; seen[key] > 1 {
			if r.once {
				continue
			}
			key += fmt.Sprintf(" #%d", seen[key])
		}
		out := leaves{}
		n.flatten("", r.value, out)
		keys = append(keys, key)
		values[key] = out
	}
	return keys, values
}

// flatten walks v in a fixed order, naming each object's UID after the object first.
func (n *normalizer) flatten(path string, v any, out leaves) {
	switch v := v.(type) {
	case map[string]any:
		if len(v) == 0 {
			out[path] = "{}"
			return
		}
		if meta, ok := v["metadata"].(map[string]any); ok {
			n.nameUID(meta)
		}
		names := make([]string, 0, len(v))
		for k := range v {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			child := k
			if path != "" {
				child = path + "." + k
			}
			if p, ok := byField[k]; ok {
				out[child] = p
				continue
			}
			n.flatten(child, v[k], out)
		}
	case []any:
		if len(v) == 0 {
			out[path] = "[]"
			return
		}
		for i, e := range v {
			n.flatten(fmt.Sprintf("%s[%d]", path, i), e, out)
		}
	case string:
		out[path] = n.str(v)
	case nil:
		out[path] = "null"
	case float64:
		out[path] = strconv.FormatFloat(v, 'g', -1, 64)
	default:
		out[path] = n.str(fmt.Sprint(v))
	}
}

// nameUID names an object's UID after the object: <uid:NAME>, <uid:NAME#2> for the next
// object of that name.
func (n *normalizer) nameUID(meta map[string]any) {
	uid, _ := meta["uid"].(string)
	name, _ := meta["name"].(string)
	if uid == "" || name == "" || n.names[uid] != "" {
		return
	}
	name = n.str(name)
	placeholder := "<uid:" + name + ">"
	if c := n.count["uid:"+name] + 1; c > 1 {
		placeholder = fmt.Sprintf("<uid:%s#%d>", name, c)
	}
	n.count["uid:"+name]++
	n.names[uid] = placeholder
}

// str normalizes the addresses, UIDs, times and durations within s.
func (n *normalizer) str(s string) string {
	s = timeRe.ReplaceAllString(s, "<time>")
	s = commitRe.ReplaceAllString(s, "kubernetes/<commit>")
	s = uuidRe.ReplaceAllStringFunc(s, func(u string) string { return n.placeholder("uid", u) })
	s = n.addresses(s, ipv6Re, func(ip netip.Addr) bool { return ip.Is6() })
	s = n.addresses(s, ipv4Re, func(ip netip.Addr) bool { return ip.Is4() })
	s = portRe.ReplaceAllString(s, "$1:<port>")
	return durationRe.ReplaceAllString(s, "<duration>")
}

// addresses replaces each address re finds in s that ok accepts by its placeholder, except
// a prefix's address (10.96.0.0/16): prefixes come from the flags, the same in every run.
func (n *normalizer) addresses(s string, re *regexp.Regexp, ok func(netip.Addr) bool) string {
	var b strings.Builder
	last := 0
	for _, m := range re.FindAllStringIndex(s, -1) {
		a := s[m[0]:m[1]]
		ip, err := netip.ParseAddr(a)
		if err != nil && strings.HasSuffix(a, ":") {
			// "can not create IPAddress fd00::a: ...": the colon after the
			// address is the message's, not the address's.
			m[1]--
			a = s[m[0]:m[1]]
			ip, err = netip.ParseAddr(a)
		}
		if err != nil || !ok(ip) || len(a) < 3 || strings.HasPrefix(s[m[1]:], "/") {
			continue
		}
		b.WriteString(s[last:m[0]])
		b.WriteString(n.placeholder("ip", a))
		last = m[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

// placeholder is value's stable name: <kind-N>, N in order of first appearance.
func (n *normalizer) placeholder(kind, value string) string {
	if p, ok := n.names[value]; ok {
		return p
	}
	n.count[kind]++
	p := fmt.Sprintf("<%s-%d>", kind, n.count[kind])
	n.names[value] = p
	return p
}

// toJSON turns any value into the generic form normalize walks.
func toJSON(v any) any {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("<unencodable: %v>", err)
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		return fmt.Sprintf("<undecodable: %v>", err)
	}
	return out
}
