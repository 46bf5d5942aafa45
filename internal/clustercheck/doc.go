// Package clustercheck checks what a cluster stores about Service allocations: every
// ClusterIP and NodePort held once, every ClusterIP backed by its IPAddress (KEP-1880)
// and the legacy bitmaps marking exactly what the Services hold, Services kept across
// an upgrade step, the kubernetes Service's shape (KEP-2438) and the Warning events by
// reason. hack/cluster-check runs it against any cluster; hack/bench-services and the
// upgrade harness use its pieces; the e2e suite shares the kubernetes Service rules.
package clustercheck
