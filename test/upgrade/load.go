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

package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

const (
	// loadNamespace holds the load's Services, which come and go between snapshots.
	loadNamespace = "netfork-load"
	// loadWorkers and loadLive bound the load: each worker keeps about loadLive Services
	// and replaces the oldest every loadPeriod, gentle enough for a 2-core machine
	// running three apiservers.
	loadWorkers = 3
	loadLive    = 20
	loadPeriod  = 200 * time.Millisecond
)

// load creates and deletes ClusterIP, NodePort and dual-stack Services until stopped;
// pause holds it between operations, so checks see no allocation in flight.
type load struct {
	cs      kubernetes.Interface
	mu      sync.Mutex
	paused  bool
	resume  *sync.Cond
	counts  loadCounts
	stopped chan struct{}
	wg      sync.WaitGroup
	active  sync.WaitGroup
}

// startLoad runs the load's workers until stop.
func startLoad(ctx context.Context, cs kubernetes.Interface) (*load, error) {
	_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: loadNamespace}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, fmt.Errorf("creating namespace %s: %w", loadNamespace, err)
	}
	l := &load{cs: cs, counts: newLoadCounts(), stopped: make(chan struct{})}
	l.resume = sync.NewCond(&l.mu)
	for w := range loadWorkers {
		l.wg.Add(1)
		go l.work(ctx, w)
	}
	return l, nil
}

// work is one worker: create one Service, delete the oldest beyond loadLive, repeat.
func (l *load) work(ctx context.Context, w int) {
	defer l.wg.Done()
	var live []string
	for n := 0; ; n++ {
		if !l.waitRunning() {
			return
		}
		name := fmt.Sprintf("load-%d-%06d", w, n)
		l.record(l.create(ctx, name, n))
		live = append(live, name)
		if len(live) > loadLive {
			err := l.cs.CoreV1().Services(loadNamespace).Delete(ctx, live[0], metav1.DeleteOptions{})
			if apierrors.IsNotFound(err) {
				err = nil // Its create failed after all, or an earlier retry deleted it.
			}
			l.record(err)
			live = live[1:]
		}
		l.active.Done()
		select {
		case <-l.stopped:
			return
		case <-ctx.Done():
			return
		case <-time.After(loadPeriod):
		}
	}
}

// create makes Service name, of a kind chosen by n: ClusterIP, NodePort or dual-stack.
func (l *load) create(ctx context.Context, name string, n int) error {
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}},
	}
	switch n % 3 {
	case 1:
		svc.Spec.Type = corev1.ServiceTypeNodePort
	case 2:
		policy := corev1.IPFamilyPolicyPreferDualStack
		svc.Spec.IPFamilyPolicy = &policy
	}
	_, err := l.cs.CoreV1().Services(loadNamespace).Create(ctx, svc, metav1.CreateOptions{})
	return err
}

// waitRunning blocks while paused and marks an operation active; false once stopped.
func (l *load) waitRunning() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for l.paused {
		select {
		case <-l.stopped:
			return false
		default:
		}
		l.resume.Wait()
	}
	select {
	case <-l.stopped:
		return false
	default:
	}
	l.active.Add(1)
	return true
}

// record counts an operation and its error, by kind (see classify).
func (l *load) record(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.counts.ops++
	if err != nil {
		l.counts.add(classify(err), err.Error())
	}
}

// pause stops new operations and waits for those in flight.
func (l *load) pause() {
	l.mu.Lock()
	l.paused = true
	l.mu.Unlock()
	l.active.Wait()
}

// unpause lets the workers go on.
func (l *load) unpause() {
	l.mu.Lock()
	l.paused = false
	l.mu.Unlock()
	l.resume.Broadcast()
}

// stop ends the workers.
func (l *load) stop() {
	close(l.stopped)
	l.unpause()
	l.wg.Wait()
}

// take returns and resets the counts since the last take.
func (l *load) take() loadCounts {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.counts
	l.counts = newLoadCounts()
	return c
}
