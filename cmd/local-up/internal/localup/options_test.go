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
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		wantErr  string
		wantN    int
		wantArgs []string
	}{
		{name: "defaults", args: nil, wantN: 1},
		{name: "local flags only", args: []string{"--apiservers", "3", "--clean"}, wantN: 3},
		{
			name:     "apiserver flags kept verbatim",
			args:     []string{"--apiservers=2", "--", "--feature-gates=A=true", "-v", "4", "--", "x"},
			wantN:    2,
			wantArgs: []string{"--feature-gates=A=true", "-v", "4", "--", "x"},
		},
		{name: "positional before --", args: []string{"extra", "--", "--v=2"}, wantErr: `unexpected argument "extra"`},
		{name: "unknown local flag", args: []string{"--feature-gates=A=true"}, wantErr: "unknown flag: --feature-gates"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := NewOptions()
			fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
			err := o.Parse(fs, tc.args)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Parse error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if o.APIServers != tc.wantN || !slices.Equal(o.APIServerArgs, tc.wantArgs) {
				t.Fatalf("got apiservers=%d args=%q, want %d %q", o.APIServers, o.APIServerArgs, tc.wantN, tc.wantArgs)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name    string
		mutate  func(*Options)
		wantErr string
	}{
		{name: "defaults", mutate: func(*Options) {}},
		{name: "200 apiservers", mutate: func(o *Options) { o.APIServers = 200 }},
		{name: "0 apiservers", mutate: func(o *Options) { o.APIServers = 0 }, wantErr: "--apiservers 0 is out of range: use 1 to 200"},
		{name: "201 apiservers", mutate: func(o *Options) { o.APIServers = 201 }, wantErr: "--apiservers 201 is out of range"},
		{name: "port 0", mutate: func(o *Options) { o.Port = 0 }, wantErr: "--port 0"},
		{name: "port too big", mutate: func(o *Options) { o.Port = 70000 }, wantErr: "--port 70000"},
		{name: "empty data dir", mutate: func(o *Options) { o.DataDir = " " }, wantErr: "--data-dir"},
		{name: "zero timeout", mutate: func(o *Options) { o.ReadyTimeout = 0 }, wantErr: "--ready-timeout"},
		{name: "bad etcd log level", mutate: func(o *Options) { o.EtcdLogLevel = "loud" }, wantErr: "--etcd-log-level"},
		{name: "binary for an apiserver", mutate: func(o *Options) { o.APIServers = 2; o.BinaryAt = []string{"1=/x"} }},
		{name: "binary for a missing apiserver", mutate: func(o *Options) { o.APIServers = 2; o.BinaryAt = []string{"2=/x"} }, wantErr: "--binary-at 2=/x: apiserver 2 does not exist (--apiservers 2 runs 0 to 1)"},
		{name: "binary twice", mutate: func(o *Options) { o.APIServers = 2; o.BinaryAt = []string{"1=/x", "1=/y"} }, wantErr: "apiserver 1 already has a binary"},
		{name: "binary without index", mutate: func(o *Options) { o.BinaryAt = []string{"/x"} }, wantErr: `--binary-at "/x": want INDEX=VALUE`},
		{name: "flag not a flag", mutate: func(o *Options) { o.FlagAt = []string{"0=v=4"} }, wantErr: `"v=4" is not a flag`},
		{name: "flag for a negative index", mutate: func(o *Options) { o.FlagAt = []string{"-1=--v=4"} }, wantErr: "apiserver -1 does not exist"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := NewOptions()
			tc.mutate(o)
			err := o.Validate()
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Validate error = %v, want %q", err, tc.wantErr)
			}
		})
	}
}

func TestNewOptionsDefaults(t *testing.T) {
	o := NewOptions()
	if o.APIServers != 1 || o.DataDir != "_output/local" || o.Port != 6443 || o.ReadyTimeout != 60*time.Second || o.Clean {
		t.Fatalf("unexpected defaults: %+v", o)
	}
}

func TestPerAPIServerBinaryAndFlags(t *testing.T) {
	o := NewOptions()
	o.APIServers = 3
	o.APIServerBinary = "/common"
	o.APIServerArgs = []string{"--v=2"}
	o.BinaryAt = []string{"2=/other"}
	o.FlagAt = []string{"1=--feature-gates=DisableAllocatorDualWrite=false", "1=--v=4"}
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"/common", "/common", "/other"} {
		if got := o.binaryFor(i); got != want {
			t.Errorf("binaryFor(%d) = %s, want %s", i, got, want)
		}
	}
	if got, want := o.userArgsFor(1), []string{"--v=2", "--feature-gates=DisableAllocatorDualWrite=false", "--v=4"}; !slices.Equal(got, want) {
		t.Errorf("userArgsFor(1) = %q, want %q", got, want)
	}
	if got, want := o.userArgsFor(2), []string{"--v=2"}; !slices.Equal(got, want) {
		t.Errorf("userArgsFor(2) = %q, want %q", got, want)
	}
}
