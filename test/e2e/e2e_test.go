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

package e2e

import (
	"flag"
	"os"
	"testing"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// kubeconfig names the cluster under test; --kubeconfig wins over $KUBECONFIG.
var kubeconfig = flag.String("kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig of the cluster under test (default $KUBECONFIG)")

var (
	// restConfig is the cluster's client configuration; set before any spec runs.
	restConfig *rest.Config
	// client talks to the cluster under test; set before any spec runs.
	client kubernetes.Interface
)

func TestE2E(t *testing.T) {
	gomega.RegisterFailHandler(ginkgo.Fail)
	ginkgo.RunSpecs(t, "netfork e2e")
}

var _ = ginkgo.BeforeSuite(func() {
	if *kubeconfig == "" {
		ginkgo.Skip("neither --kubeconfig nor KUBECONFIG is set: the e2e suite needs a cluster (make run, or a kind cluster)")
	}
	var err error
	restConfig, err = clientcmd.BuildConfigFromFlags("", *kubeconfig)
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "loading kubeconfig %s", *kubeconfig)
	client, err = kubernetes.NewForConfig(restConfig)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
})
