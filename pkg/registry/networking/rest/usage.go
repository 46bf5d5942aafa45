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

package rest

import (
	"context"
	"net/netip"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/kubernetes/pkg/apis/networking"

	"github.com/netfork/netfork/pkg/registry/core/service/ipallocator"
)

// unknownUsage is the cell of a CIDR whose usage this apiserver does not know.
const unknownUsage = "<unknown>"

// usageColumns follow upstream's ServiceCIDR columns (Name, CIDRs, Age).
var usageColumns = []metav1.TableColumnDefinition{
	{Name: "Used", Type: "string", Description: "Used addresses of each CIDR, in the order of CIDRs; an address inside two overlapping ServiceCIDRs counts in both."},
	{Name: "Free", Type: "string", Description: "Addresses of each CIDR that can still be allocated (both bands, without the network and IPv4 broadcast addresses), in the order of CIDRs."},
}

// usageTable adds the Used and Free columns, read from the ClusterIP
// allocators' memory, to upstream's ServiceCIDR table.
type usageTable struct {
	rest.TableConvertor
	usage ipallocator.UsageReader
}

func (t usageTable) ConvertToTable(ctx context.Context, object runtime.Object, tableOptions runtime.Object) (*metav1.Table, error) {
	table, err := t.TableConvertor.ConvertToTable(ctx, object, tableOptions)
	if err != nil || table == nil {
		return table, err
	}
	if len(table.ColumnDefinitions) > 0 { // none with NoHeaders
		table.ColumnDefinitions = append(table.ColumnDefinitions, usageColumns...)
	}
	for i := range table.Rows {
		row := &table.Rows[i]
		cidr, _ := row.Object.Object.(*networking.ServiceCIDR)
		used, free := t.cells(cidr)
		row.Cells = append(row.Cells, used, free)
	}
	return table, nil
}

// cells are cidr's Used and Free cells, one comma-separated count per CIDR.
func (t usageTable) cells(cidr *networking.ServiceCIDR) (used, free string) {
	if cidr == nil {
		return unknownUsage, unknownUsage
	}
	u := make([]string, len(cidr.Spec.CIDRs))
	f := make([]string, len(cidr.Spec.CIDRs))
	for i, s := range cidr.Spec.CIDRs {
		u[i], f[i] = unknownUsage, unknownUsage
		p, err := netip.ParsePrefix(s)
		if err != nil {
			continue
		}
		if usage, ok := t.usage.Usage(p); ok {
			u[i], f[i] = strconv.FormatUint(usage.Used, 10), strconv.FormatUint(usage.Free, 10)
		}
	}
	return strings.Join(u, ","), strings.Join(f, ",")
}
