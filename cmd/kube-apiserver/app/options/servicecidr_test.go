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
	"testing"
)

func TestEnableServiceCIDRControllerFlag(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want bool
	}{
		{name: "on by default", want: true},
		{name: "off", args: []string{"--enable-servicecidr-controller=false"}, want: false},
		{name: "on", args: []string{"--enable-servicecidr-controller"}, want: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, completed, err := complete(t, host(hostIPv4, hostIPv6), tc.args...)
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			if completed.EnableServiceCIDRController != tc.want {
				t.Errorf("EnableServiceCIDRController = %v, want %v", completed.EnableServiceCIDRController, tc.want)
			}
		})
	}
}

func TestEnableServiceCIDRControllerFlagBadInput(t *testing.T) {
	_, fs := newTestOptions(t, nil)
	err := fs.Parse([]string{"--enable-servicecidr-controller=maybe"})
	want := `invalid argument "maybe" for "--enable-servicecidr-controller" flag: strconv.ParseBool: parsing "maybe": invalid syntax`
	if err == nil || err.Error() != want {
		t.Errorf("Parse() = %v, want %q", err, want)
	}
}

func TestEnableServiceCIDRControllerFlagSet(t *testing.T) {
	s := NewServerRunOptions()
	s.GenericServerRunOptions.ComponentGlobalsRegistry = newTestRegistry(t)
	misc := s.Flags().FlagSets["misc"]
	if misc == nil || misc.Lookup(EnableServiceCIDRControllerFlag) == nil || misc.Lookup("service-cluster-ip-range") == nil {
		t.Errorf("--%s is not beside --service-cluster-ip-range in the misc flag set", EnableServiceCIDRControllerFlag)
	}
}
