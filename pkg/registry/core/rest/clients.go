package rest

import (
	"fmt"

	admissionregistrationv1client "k8s.io/client-go/kubernetes/typed/admissionregistration/v1"
	policyv1client "k8s.io/client-go/kubernetes/typed/policy/v1"
	restclient "k8s.io/client-go/rest"
)

// loopbackClients are the clients core storages use to reach other resources of this apiserver.
type loopbackClients struct {
	policy    policyv1client.PodDisruptionBudgetsGetter
	admission admissionregistrationv1client.AdmissionregistrationV1Interface
}

func newLoopbackClients(config *restclient.Config) (*loopbackClients, error) {
	policy, err := policyv1client.NewForConfig(config)
	if err != nil {
		return nil, fmt.Errorf("building policy/v1 loopback client: %w", err)
	}
	admission, err := admissionregistrationv1client.NewForConfig(config)
	if err != nil {
		return nil, fmt.Errorf("building admissionregistration/v1 loopback client: %w", err)
	}
	return &loopbackClients{policy: policy, admission: admission}, nil
}
