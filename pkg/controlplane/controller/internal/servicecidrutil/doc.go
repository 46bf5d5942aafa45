// Package servicecidrutil holds what netfork's two ServiceCIDR controllers,
// defaultservicecidr and servicecidrs, both do: write the Ready condition of a
// ServiceCIDR and report through an events/v1 recorder. Upstream's controllers
// (k8s.io/kubernetes/pkg/controlplane/controller/defaultservicecidr and
// pkg/controller/servicecidrs, v1.37.1) each carry their own copy of this.
package servicecidrutil
