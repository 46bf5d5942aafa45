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

// Command kubectl-servicecidr is the kubectl plugin `kubectl servicecidr`: it
// renumbers a live cluster's Services from one Service range to another
// (plan, renumber, finish, rollback), and turns them dual-stack and back
// (dual-stack, single-stack, replace-default).
package main

import (
	"os"

	"github.com/netfork/netfork/cmd/kubectl-servicecidr/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}
