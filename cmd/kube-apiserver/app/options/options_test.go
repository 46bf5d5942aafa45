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

package options

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"

	upstreamoptions "k8s.io/kubernetes/cmd/kube-apiserver/app/options"
)

func TestFlagsKeepUpstreamsAddressFlags(t *testing.T) {
	upstreamOpts := upstreamoptions.NewServerRunOptions()
	upstreamOpts.GenericServerRunOptions.ComponentGlobalsRegistry = newTestRegistry(t)
	upstream := pflag.NewFlagSet("upstream", pflag.ContinueOnError)
	for _, fs := range upstreamOpts.Flags().FlagSets {
		upstream.AddFlagSet(fs)
	}
	_, ours := newTestOptions(t, nil)
	for _, name := range []string{BindAddressFlag, AdvertiseAddressFlag} {
		t.Run(name, func(t *testing.T) {
			want, got := upstream.Lookup(name), ours.Lookup(name)
			if got == nil {
				t.Fatalf("--%s is missing", name)
			}
			if got.DefValue != want.DefValue || got.Value.Type() != want.Value.Type() || got.Value.String() != want.Value.String() {
				t.Errorf("--%s default %q type %q value %q, want upstream's %q %q %q", name,
					got.DefValue, got.Value.Type(), got.Value.String(), want.DefValue, want.Value.Type(), want.Value.String())
			}
			extra, found := strings.CutPrefix(got.Usage, want.Usage)
			if !found || strings.Count(extra, ". ") != 0 || !strings.HasSuffix(extra, ".") {
				t.Errorf("--%s help adds %q to upstream's, want one sentence", name, extra)
			}
		})
	}
}
