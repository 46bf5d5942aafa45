package features

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"k8s.io/component-base/featuregate"
)

// FeatureGatesFlag is the kube-apiserver's feature-gate flag.
const FeatureGatesFlag = "feature-gates"

// kubeComponent is the component prefix --feature-gates accepts for kube's gates ("kube:Foo=true").
const kubeComponent = "kube"

// WrapFeatureGatesFlag makes --feature-gates in fs set the unlocked gates on
// Gate and pass every other gate to the flag upstream registered.
func WrapFeatureGatesFlag(fs *pflag.FlagSet) error {
	f := fs.Lookup(FeatureGatesFlag)
	if f == nil {
		return fmt.Errorf("no --%s flag to wrap", FeatureGatesFlag)
	}
	if _, done := f.Value.(*splitGatesValue); done {
		return nil
	}
	f.Value = &splitGatesValue{upstream: f.Value, unlocked: Gate}
	f.Usage += "\nnetfork: " + string(MultiCIDRServiceAllocator) + " and " + string(DisableAllocatorDualWrite) +
		" are settable (upstream 1.37 locks them to true)."
	return nil
}

// splitGatesValue routes each key=value of --feature-gates to the gate that owns it.
type splitGatesValue struct {
	upstream pflag.Value
	unlocked featuregate.MutableFeatureGate
	set      []string
}

func (v *splitGatesValue) Set(value string) error {
	var rest []string
	ours := map[string]bool{}
	for _, item := range strings.Split(value, ",") {
		item = strings.TrimSpace(item)
		name, enabled, isOurs, err := parseUnlocked(item)
		if err != nil {
			return err
		}
		if !isOurs {
			if item != "" {
				rest = append(rest, item)
			}
			continue
		}
		ours[name] = enabled
		v.set = append(v.set, fmt.Sprintf("%s=%t", name, enabled))
	}
	if len(ours) > 0 {
		if err := v.unlocked.SetFromMap(ours); err != nil {
			return err
		}
	}
	if len(rest) > 0 || len(ours) == 0 {
		return v.upstream.Set(strings.Join(rest, ","))
	}
	return nil
}

// parseUnlocked reads item ("[kube:]Name=bool") when Name is an unlocked gate.
func parseUnlocked(item string) (name string, enabled, ours bool, err error) {
	key, val, found := strings.Cut(item, "=")
	if comp, gate, prefixed := strings.Cut(key, ":"); prefixed {
		if strings.TrimSpace(comp) != kubeComponent {
			return "", false, false, nil
		}
		key = gate
	}
	key = strings.TrimSpace(key)
	if !IsUnlocked(featuregate.Feature(key)) {
		return "", false, false, nil
	}
	if !found {
		return "", false, false, fmt.Errorf("missing bool value for %s", key)
	}
	enabled, err = strconv.ParseBool(strings.TrimSpace(val))
	if err != nil {
		return "", false, false, fmt.Errorf("invalid value of %s: %q, want true or false", key, val)
	}
	return key, enabled, true, nil
}

func (v *splitGatesValue) String() string {
	s := v.upstream.String()
	if len(v.set) == 0 {
		return s
	}
	if s == "" {
		return strings.Join(v.set, ",")
	}
	return s + "," + strings.Join(v.set, ",")
}

func (v *splitGatesValue) Type() string { return v.upstream.Type() }
