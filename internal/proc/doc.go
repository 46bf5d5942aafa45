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

// Package proc runs the kube-apiserver child processes of netfork's commands
// (cmd/local-up, cmd/local-up-netns, test/bench) and test harnesses:
// it starts a child in its own process group that dies with its parent, stops
// it with SIGTERM and then SIGKILL, explains an exit with one line of its log,
// and waits for an apiserver's /readyz. It is the one copy of what each of
// those commands used to do on its own.
package proc
