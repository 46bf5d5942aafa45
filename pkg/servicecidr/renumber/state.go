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
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/netfork/netfork/pkg/controlplane/controller/servicebridge"
)

const (
	// StateNamespace is the namespace of the ConfigMap that records a renumber.
	StateNamespace = metav1.NamespaceSystem
	// StateName is the name of the ConfigMap that records a renumber.
	StateName = "servicecidr-renumber"
	// stateKey is the ConfigMap key where a plugin before the chunked record
	// kept the whole State as JSON.
	stateKey = "state"
	// recordKey is the ConfigMap key holding the State without its Service
	// entries as JSON. A plugin that reads only stateKey finds it empty and
	// refuses the record instead of taking it for one without Services.
	recordKey = "record"
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

// The record is one header ConfigMap (StateName) and, for the Service
// entries, chunk ConfigMaps of chunkSize entries each, so that it holds any
// number of Services and a save writes only the chunks that changed. Chunks
// are immutable: a changed chunk is written as a new ConfigMap, and the
// header's update, which lists the chunks in order and carries the
// resourceVersion of the last read, is the one write that commits a save. A
// run killed between the two leaves an unlisted chunk and the record as it
// was. Each commit numbers the header's generation and labels the chunks
// written for it with that number, so a run, once its first save is
// committed, deletes the unlisted chunks of that generation or older: no
// other run can still commit them. remove deletes every chunk.
const (
	// chunksKey is the header's key listing its chunks' names in order, as JSON.
	chunksKey = "chunks"
	// generationKey is the header's key numbering its commits.
	generationKey = "generation"
	// chunkKey is a chunk's key holding its Service entries, as JSON.
	chunkKey = "services"
	// ChunkLabel marks the record's chunk ConfigMaps; its value is StateName.
	ChunkLabel = "servicecidr.netfork.io/renumber-record"
	// chunkGenerationLabel is the generation of the header a chunk was written for.
	chunkGenerationLabel = "servicecidr.netfork.io/renumber-generation"
	// chunkSize is the Service entries per chunk: a save writes about this many.
	chunkSize = 32
)

// store reads and writes the State with optimistic concurrency: every write
// of the header carries the resourceVersion of the last read, so two runs
// never both win.
type store struct {
	client kubernetes.Interface
	// cm is the header last read or written; nil when there is none.
	cm *corev1.ConfigMap
	// chunks are the chunks cm lists, in order.
	chunks []chunk
	// generation is cm's; swept says the unlisted chunks up to it are deleted.
	generation int
	swept      bool
}

// chunk is one chunk ConfigMap of the record as the store last saw it.
type chunk struct {
	name string
	data string
}

// Recorded is the renumber recorded in the cluster, nil when there is none,
// for other commands that must not change Services under a renumber.
func Recorded(ctx context.Context, client kubernetes.Interface) (*State, error) {
	return (&store{client: client}).load(ctx)
}

// load reads the State; nil when there is none.
func (s *store) load(ctx context.Context) (*State, error) {
	cms := s.client.CoreV1().ConfigMaps(StateNamespace)
	cm, err := cms.Get(ctx, StateName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		s.cm, s.chunks, s.generation = nil, nil, 0
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading ConfigMap %s/%s: %w", StateNamespace, StateName, err)
	}
	// A header without recordKey holds the whole State under stateKey, as an
	// older plugin wrote it; the next save writes it as chunks.
	key := recordKey
	if _, ok := cm.Data[recordKey]; !ok {
		key = stateKey
	}
	var st State
	if err := json.Unmarshal([]byte(cm.Data[key]), &st); err != nil {
		return nil, fmt.Errorf("ConfigMap %s/%s key %s: %w", StateNamespace, StateName, key, err)
	}
	generation := 0
	if g, ok := cm.Data[generationKey]; ok {
		if generation, err = strconv.Atoi(g); err != nil {
			return nil, fmt.Errorf("ConfigMap %s/%s key %s: %w", StateNamespace, StateName, generationKey, err)
		}
	}
	var names []string
	if list, ok := cm.Data[chunksKey]; ok {
		if err := json.Unmarshal([]byte(list), &names); err != nil {
			return nil, fmt.Errorf("ConfigMap %s/%s key %s: %w", StateNamespace, StateName, chunksKey, err)
		}
	}
	chunks := make([]chunk, 0, len(names))
	for _, name := range names {
		part, err := cms.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil, fmt.Errorf("reading the record's chunk, ConfigMap %s/%s: %w", StateNamespace, name, err)
		}
		var recs []ServiceRecord
		if err := json.Unmarshal([]byte(part.Data[chunkKey]), &recs); err != nil {
			return nil, fmt.Errorf("ConfigMap %s/%s key %s: %w", StateNamespace, name, chunkKey, err)
		}
		st.Services = append(st.Services, recs...)
		chunks = append(chunks, chunk{name: name, data: part.Data[chunkKey]})
	}
	s.cm, s.chunks, s.generation = cm, chunks, generation
	return &st, nil
}

// encodeRecord is the record of st as the store writes it: the header's State
// without the Service entries, and the entries in chunks of chunkSize.
func encodeRecord(st *State) (header []byte, chunks [][]byte, err error) {
	head := *st
	head.Services = nil
	if header, err = json.Marshal(&head); err != nil {
		return nil, nil, err
	}
	for i := 0; i < len(st.Services); i += chunkSize {
		data, err := json.Marshal(st.Services[i:min(i+chunkSize, len(st.Services))])
		if err != nil {
			return nil, nil, err
		}
		chunks = append(chunks, data)
	}
	return header, chunks, nil
}

// save writes st: each chunk that changed as a new ConfigMap (named like a
// generateName would, which fake clients do not), then the header
// listing them, creating it the first time; then it deletes the chunks the
// header no longer lists. Chunks written for a header that could not be
// written are deleted again.
func (s *store) save(ctx context.Context, st *State) error {
	header, parts, err := encodeRecord(st)
	if err != nil {
		return err
	}
	cms := s.client.CoreV1().ConfigMaps(StateNamespace)
	generation := s.generation + 1
	chunks := make([]chunk, len(parts))
	var written []string
	for i, data := range parts {
		if i < len(s.chunks) && s.chunks[i].data == string(data) {
			chunks[i] = s.chunks[i]
			continue
		}
		created, err := cms.Create(ctx, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: StateName + "-" + utilrand.String(8), Namespace: StateNamespace, Labels: map[string]string{ChunkLabel: StateName, chunkGenerationLabel: strconv.Itoa(generation)}},
			Data:       map[string]string{chunkKey: string(data)},
			Immutable:  ptr.To(true),
		}, metav1.CreateOptions{FieldManager: FieldManager})
		if err != nil {
			s.deleteChunks(ctx, written)
			return fmt.Errorf("recording the renumber in a chunk of ConfigMap %s/%s: %w", StateNamespace, StateName, err)
		}
		chunks[i] = chunk{name: created.Name, data: string(data)}
		written = append(written, created.Name)
	}
	names := make([]string, len(chunks))
	for i, c := range chunks {
		names[i] = c.name
	}
	list, err := json.Marshal(names)
	if err != nil {
		return err
	}
	data := map[string]string{recordKey: string(header), chunksKey: string(list), generationKey: strconv.Itoa(generation)}
	var saved *corev1.ConfigMap
	if s.cm == nil {
		saved, err = cms.Create(ctx, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: StateName, Namespace: StateNamespace},
			Data:       data,
		}, metav1.CreateOptions{FieldManager: FieldManager})
	} else {
		cm := s.cm.DeepCopy()
		cm.Data = data
		saved, err = cms.Update(ctx, cm, metav1.UpdateOptions{FieldManager: FieldManager})
	}
	if err != nil {
		s.deleteChunks(ctx, written)
		return fmt.Errorf("recording the renumber in ConfigMap %s/%s: %w", StateNamespace, StateName, err)
	}
	var replaced []string
	for _, old := range s.chunks {
		if !slices.Contains(names, old.name) {
			replaced = append(replaced, old.name)
		}
	}
	s.cm, s.chunks, s.generation = saved, chunks, generation
	s.deleteChunks(ctx, replaced)
	if !s.swept {
		s.swept = s.sweep(ctx, names) == nil
	}
	return nil
}

// sweep deletes the chunks that the header, just committed with names, does
// not list and that were written for its generation or an older one: those of
// runs killed, or beaten, before their header was written.
func (s *store) sweep(ctx context.Context, names []string) error {
	list, err := s.listChunks(ctx)
	if err != nil {
		return err
	}
	var stale []string
	for _, cm := range list.Items {
		g, err := strconv.Atoi(cm.Labels[chunkGenerationLabel])
		if (err != nil || g <= s.generation) && !slices.Contains(names, cm.Name) {
			stale = append(stale, cm.Name)
		}
	}
	s.deleteChunks(ctx, stale)
	return nil
}

// listChunks lists every chunk of the record, listed by the header or not.
func (s *store) listChunks(ctx context.Context) (*corev1.ConfigMapList, error) {
	return s.client.CoreV1().ConfigMaps(StateNamespace).List(ctx, metav1.ListOptions{LabelSelector: ChunkLabel + "=" + StateName})
}

// deleteChunks deletes chunks no header lists, as far as it can: one it
// cannot delete is left to remove.
func (s *store) deleteChunks(ctx context.Context, names []string) {
	for _, name := range names {
		_ = s.client.CoreV1().ConfigMaps(StateNamespace).Delete(ctx, name, metav1.DeleteOptions{})
	}
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
	s.cm, s.chunks, s.generation = nil, nil, 0
	// Every chunk goes, those of runs killed before their header was written too.
	list, err := s.listChunks(ctx)
	if err != nil {
		return fmt.Errorf("listing the record's chunks, ConfigMaps %s/%s-*: %w", StateNamespace, StateName, err)
	}
	for _, cm := range list.Items {
		err := s.client.CoreV1().ConfigMaps(StateNamespace).Delete(ctx, cm.Name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting the record's chunk, ConfigMap %s/%s: %w", StateNamespace, cm.Name, err)
		}
	}
	return nil
}
