package controlplane

import (
	"os"
	"testing"

	"github.com/netfork/netfork/test/integration/framework"
)

func TestMain(m *testing.M) {
	os.Exit(framework.EtcdMain(m))
}
