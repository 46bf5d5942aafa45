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

package cmdutil

import (
	"bytes"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

func TestParseFlags(t *testing.T) {
	tests := []struct {
		args       []string
		wantCode   int
		wantOK     bool
		wantStderr string
	}{
		{args: []string{"--n=3"}, wantOK: true},
		{args: []string{"--help"}, wantCode: 0, wantStderr: "usage: cmd\n      --n int"},
		{args: []string{"--n=x"}, wantCode: 1, wantStderr: `cmd: error: invalid argument "x" for "--n" flag`},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var stderr bytes.Buffer
			var n int
			code, ok := ParseFlags("cmd", "usage: cmd\n", tc.args, &stderr, func(fs *pflag.FlagSet, args []string) error {
				fs.IntVar(&n, "n", 0, "a number")
				return fs.Parse(args)
			})
			if code != tc.wantCode || ok != tc.wantOK || !strings.Contains(stderr.String(), tc.wantStderr) {
				t.Errorf("ParseFlags = %d, %t, stderr %q; want %d, %t, stderr containing %q", code, ok, stderr.String(), tc.wantCode, tc.wantOK, tc.wantStderr)
			}
			if tc.wantOK && n != 3 {
				t.Errorf("n = %d, want 3", n)
			}
		})
	}
}

func TestArgsAfterDash(t *testing.T) {
	tests := []struct {
		args    []string
		want    []string
		wantN   int
		wantErr string
	}{
		{args: nil, want: []string{}},
		{args: []string{"--n=2"}, want: []string{}, wantN: 2},
		{args: []string{"--n=2", "--", "--v=4", "x"}, want: []string{"--v=4", "x"}, wantN: 2},
		{args: []string{"--", "--n=5"}, want: []string{"--n=5"}},
		{args: []string{"stray", "--", "--v=4"}, wantErr: `unexpected argument "stray": kube-apiserver flags go after --`},
		{args: []string{"stray"}, wantErr: `unexpected argument "stray": kube-apiserver flags go after --`},
		{args: []string{"--n=x"}, wantErr: `invalid argument "x" for "--n" flag`},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			fs := pflag.NewFlagSet("cmd", pflag.ContinueOnError)
			fs.SetOutput(&bytes.Buffer{})
			n := fs.Int("n", 0, "a number")
			got, err := ArgsAfterDash(fs, tc.args, "kube-apiserver")
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("ArgsAfterDash(%q) error = %v, want one containing %q", tc.args, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ArgsAfterDash(%q): %v", tc.args, err)
			}
			if strings.Join(got, " ") != strings.Join(tc.want, " ") || len(got) != len(tc.want) || *n != tc.wantN {
				t.Errorf("ArgsAfterDash(%q) = %q, n=%d; want %q, n=%d", tc.args, got, *n, tc.want, tc.wantN)
			}
		})
	}
}
