// Package proc runs the kube-apiserver child processes of netfork's commands
// (cmd/local-up, hack/local-up-netns, hack/bench-services) and test harnesses:
// it starts a child in its own process group that dies with its parent, stops
// it with SIGTERM and then SIGKILL, explains an exit with one line of its log,
// and waits for an apiserver's /readyz. It is the one copy of what each of
// those commands used to do on its own.
package proc
