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

// Command shimscan finds netfork code copied from upstream: every run of
// -window (6) or more significant source lines in netfork's Go files that
// matches, token for token, a run in upstream's Go files, and fails on each
// such run outside an "// upstream-shim begin ... // upstream-shim end" region.
//
// Upstream is every k8s.io package that netfork's modules (the main one and
// those under hack/) import, with its tests and the files other platforms
// build; upstream's packages at the paths where netfork keeps its
// replacements (pkg/..., staging-patches/<module>/...); and the upstream test
// trees whose bodies netfork's tests could have copied (test/integration,
// test/e2e/network).
//
// A line is the tokens of one source line: comments, the package clause and
// imports are left out, and an import's qualifier is dropped so that
// "reconcilers.NewLeases" in netfork matches "NewLeases" in upstream's
// reconcilers package. Lines of closing punctuation and trivially common
// lines ("if err != nil {", "return nil, err", ...) do not count towards a
// window but lie inside the runs they sit in.
//
// hack/verify-upstream-shims.sh runs it from the repository root:
//
//	shimscan [-window 6] [-v]
//
// -v also lists the runs inside regions.
package main
