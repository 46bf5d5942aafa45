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

package renumber

import (
	"context"
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/netfork/netfork/pkg/controlplane/controller/servicebridge"
)

const (
	// StateNamespace is the namespace of the ConfigMap that records a renumber.
	StateNamespace = metav1.NamespaceSystem
	// StateName is the name of the ConfigMap that records a renumber.
	StateName = "servicecidr-renumber"
	// stateKey is the ConfigMap key holding the State as JSON.
	stateKey = "state"
	// TargetServiceCIDRName is the ServiceCIDR the renumber creates for the target range.
	TargetServiceCIDRName = "servicecidr-renumber"
	// FieldManager names the tool in managedFields and is its user agent.
	FieldManager = "kubectl-servicecidr"
	// BridgeLabel marks a bridge Service; its value is the moved Service's name.
	// The apiservers' service-bridge controller gives each bridge copies of
	// the moved Service's EndpointSlices.
	BridgeLabel = servicebridge.BridgeLabel
	// KubernetesBridgeName is the bridge of the `kubernetes` Service.
	KubernetesBridgeName = kubernetesName + "-renumber-bridge"
	// DefaultServiceCIDRName is the ServiceCIDR the apiservers keep from their flags.
	DefaultServiceCIDRName = "kubernetes"
)

// Phase is how far a renumber has come.
type Phase string

const (
	// PhaseMoving means the target ServiceCIDR exists; Services are being moved.
	PhaseMoving Phase = "Moving"
	// PhaseCutOver means every Service is moved; the old ServiceCIDR is being deleted.
	PhaseCutOver Phase = "CutOver"
	// PhaseRenumbered means the grace period: bridges keep the old addresses alive.
	PhaseRenumbered Phase = "Renumbered"
	// PhaseFinished means the bridges are gone.
	PhaseFinished Phase = "Finished"
	// PhaseRollingBack means a rollback has begun; only rollback continues it.
	PhaseRollingBack Phase = "RollingBack"
)

// State is what the ConfigMap records: enough to continue or undo the renumber
// from the cluster alone.
type State struct {
	From  []string `json:"from"`
	To    []string `json:"to"`
	Phase Phase    `json:"phase"`
	// ClusterDomain is the DNS suffix of the bridges' names.
	ClusterDomain string `json:"clusterDomain"`
	// CutOver is when the old ServiceCIDR was deleted: a pod started before
	// it may hold an old address.
	CutOver *metav1.Time `json:"cutOver,omitempty"`
	// Services holds one record per moved Service, written before its first change.
	Services []ServiceRecord `json:"services,omitempty"`
	// Configs holds the kubeadm ConfigMap values before the renumber changed them.
	Configs []ConfigRecord `json:"configs,omitempty"`
	// Kubernetes records the `kubernetes` Service before the renumber deleted
	// it: its NewClusterIPs are where the apiservers recreate it, its Bridge
	// keeps its old addresses. Written before the cut-over, which is recorded
	// later, so finish counts every pod started before it moved.
	Kubernetes *ServiceRecord `json:"kubernetes,omitempty"`
}

// ServiceRecord is one Service as it was before it moved.
type ServiceRecord struct {
	Namespace string    `json:"namespace"`
	Name      string    `json:"name"`
	UID       types.UID `json:"uid"`
	// OldClusterIPs and NewClusterIPs are its addresses before and after.
	OldClusterIPs []string `json:"oldClusterIPs"`
	NewClusterIPs []string `json:"newClusterIPs"`
	// Spec is its spec before the move, restored with NewClusterIPs.
	Spec corev1.ServiceSpec `json:"spec"`
	// ManagedFields are restored with Spec, so field ownership is as it was.
	ManagedFields []metav1.ManagedFieldsEntry `json:"managedFields,omitempty"`
	// Bridge is the bridge Service's name; empty when the Service moved after
	// the cut-over, when no bridge can take its old address.
	Bridge string `json:"bridge,omitempty"`
	// Holder is the holder Service's name: it takes NewClusterIPs a
	// kube-proxy sync before the move, so that they answer before the
	// Service's name resolves to them, and frees them just before the
	// Service takes them. Empty when refused, or recorded by an earlier
	// version of the tool.
	Holder string `json:"holder,omitempty"`
}

func (r *ServiceRecord) key() string { return r.Namespace + "/" + r.Name }

// ConfigRecord is one kubeadm ConfigMap value before and after.
type ConfigRecord struct {
	Name string `json:"name"`
	Key  string `json:"key"`
	Old  string `json:"old"`
	New  string `json:"new"`
}

// store reads and writes the State with optimistic concurrency: every write
// carries the resourceVersion of the last read, so two runs never both win.
type store struct {
	client kubernetes.Interface
	cm     *corev1.ConfigMap
}

// Recorded is the renumber recorded in the cluster, nil when there is none,
// for other commands that must not change Services under a renumber.
func Recorded(ctx context.Context, client kubernetes.Interface) (*State, error) {
	return (&store{client: client}).load(ctx)
}

// load reads the State; nil when there is none.
func (s *store) load(ctx context.Context) (*State, error) {
	cm, err := s.client.CoreV1().ConfigMaps(StateNamespace).Get(ctx, StateName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		s.cm = nil
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading ConfigMap %s/%s: %w", StateNamespace, StateName, err)
	}
	s.cm = cm
	var st State
	if err := json.Unmarshal([]byte(cm.Data[stateKey]), &st); err != nil {
		return nil, fmt.Errorf("ConfigMap %s/%s key %s: %w", StateNamespace, StateName, stateKey, err)
	}
	return &st, nil
}

// save writes st, creating the ConfigMap the first time.
func (s *store) save(ctx context.Context, st *State) error {
	data, err := json.Marshal(st)
	if err != nil {
		return err
	}
	cms := s.client.CoreV1().ConfigMaps(StateNamespace)
	opts := metav1.UpdateOptions{FieldManager: FieldManager}
	if s.cm == nil {
		cm := &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: StateName, Namespace: StateNamespace},
			Data:       map[string]string{stateKey: string(data)},
		}
		created, err := cms.Create(ctx, cm, metav1.CreateOptions{FieldManager: FieldManager})
		if err != nil {
			return fmt.Errorf("recording the renumber in ConfigMap %s/%s: %w", StateNamespace, StateName, err)
		}
		s.cm = created
		return nil
	}
	cm := s.cm.DeepCopy()
	cm.Data = map[string]string{stateKey: string(data)}
	updated, err := cms.Update(ctx, cm, opts)
	if err != nil {
		return fmt.Errorf("recording the renumber in ConfigMap %s/%s: %w", StateNamespace, StateName, err)
	}
	s.cm = updated
	return nil
}

// remove deletes the ConfigMap, if it is still the one last read.
func (s *store) remove(ctx context.Context) error {
	if s.cm == nil {
		return nil
	}
	err := s.client.CoreV1().ConfigMaps(StateNamespace).Delete(ctx, StateName, metav1.DeleteOptions{
		Preconditions: &metav1.Preconditions{ResourceVersion: &s.cm.ResourceVersion},
	})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting ConfigMap %s/%s: %w", StateNamespace, StateName, err)
	}
	s.cm = nil
	return nil
}
