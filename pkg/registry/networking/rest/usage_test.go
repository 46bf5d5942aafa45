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
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubernetes/pkg/apis/networking"
	"k8s.io/kubernetes/pkg/printers"
	printersinternal "k8s.io/kubernetes/pkg/printers/internalversion"
	printerstorage "k8s.io/kubernetes/pkg/printers/storage"

	"github.com/netfork/netfork/pkg/registry/core/service/ipallocator"
)

// usageMap is a UsageReader over fixed counts.
type usageMap map[netip.Prefix]ipallocator.Usage

func (m usageMap) Usage(p netip.Prefix) (ipallocator.Usage, bool) {
	u, ok := m[p]
	return u, ok
}

func TestUsageTable(t *testing.T) {
	table := usageTable{
		TableConvertor: printerstorage.TableConvertor{TableGenerator: printers.NewTableGenerator().With(printersinternal.AddHandlers)},
		usage: usageMap{
			netip.MustParsePrefix("10.96.0.0/28"): {Used: 13, Usable: 14, Free: 1},
			netip.MustParsePrefix("10.97.0.0/16"): {Usable: 65534, Free: 65534},
		},
	}
	list := &networking.ServiceCIDRList{Items: []networking.ServiceCIDR{
		{ObjectMeta: metav1.ObjectMeta{Name: "kubernetes"}, Spec: networking.ServiceCIDRSpec{CIDRs: []string{"10.96.0.0/28", "fd00::/108"}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "extra"}, Spec: networking.ServiceCIDRSpec{CIDRs: []string{"10.97.0.0/16"}}},
	}}
	wantCells := [][]string{{"kubernetes", "10.96.0.0/28,fd00::/108", "13,<unknown>", "1,<unknown>"}, {"extra", "10.97.0.0/16", "0", "65534"}}

	for _, tc := range []struct {
		name    string
		options runtime.Object
		columns []string
	}{
		{name: "headers", columns: []string{"Name", "CIDRs", "Age", "Used", "Free"}},
		{name: "no headers", options: &metav1.TableOptions{NoHeaders: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := table.ConvertToTable(context.Background(), list, tc.options)
			if err != nil {
				t.Fatal(err)
			}
			var columns []string
			for _, c := range got.ColumnDefinitions {
				columns = append(columns, c.Name)
			}
			if !reflect.DeepEqual(columns, tc.columns) {
				t.Errorf("columns = %v, want %v", columns, tc.columns)
			}
			if len(got.Rows) != len(wantCells) {
				t.Fatalf("%d rows, want %d", len(got.Rows), len(wantCells))
			}
			for i, row := range got.Rows {
				// Age (column 2) depends on the clock; the rest is exact.
				cells := []string{row.Cells[0].(string), row.Cells[1].(string), row.Cells[3].(string), row.Cells[4].(string)}
				if !reflect.DeepEqual(cells, wantCells[i]) || len(row.Cells) != 5 {
					t.Errorf("row %d = %v, want %v around Age", i, row.Cells, wantCells[i])
				}
			}
		})
	}
}
