// Command cluster-check checks what a cluster stores about Service allocations and
// prints one table row per check, exiting 1 when any fails: Services kept since a
// snapshot (no Service lost, recreated or moved to other ClusterIPs or NodePorts), no
// duplicate ClusterIP or NodePort, every ClusterIP backed by its IPAddress within one
// repair interval (IPAddress modes), the legacy bitmaps agreeing with the Services
// (with etcd access), the kubernetes Service's shape, kube-apiserver pod restarts, and
// the Warning events by reason, some expected and some forbidden. It works on any
// cluster (local-up, kind); the upgrade harnesses run it after every step. Run it with
// the cluster's load paused: the checks wait (--settle, --repair-interval) for
// allocations in flight to land, not for a load that never stops.
//
//	cluster-check --kubeconfig K [--snapshot-in S0] [--snapshot-out S1] [--etcd-endpoints URL] ...
package main
