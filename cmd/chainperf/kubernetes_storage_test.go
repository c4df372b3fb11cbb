package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/chainperf/chainperf/internal/testnet/kubernetes/kubetest"
)

// kubernetesHomeKeptOnItsVolume: with testnet.kubernetes.storage_class
// each node's home is a claim; validator3's pod is killed under load and
// made again on the same volume: its files are those of its first start
// (not copied again) and its signing state went on, the faults table says
// the home was kept, and the claims are deleted with the testnet. The
// class's volumes are host directories this test makes (the local cluster
// has no provisioner), removed at its end. Four validators: the chain goes
// on while one is down; 24 s of load: the pod is back 8 s in and at the
// tip soon after (with 16 s a CI run's beside tier, busier than usual,
// ended the phase before it was).
func kubernetesHomeKeptOnItsVolume(t *testing.T) {
	cs := kubetest.Cluster(t)
	ctx := context.Background()
	class := fmt.Sprintf("chainperf-test-%d", os.Getpid())
	mode := storagev1.VolumeBindingImmediate
	if _, err := cs.StorageV1().StorageClasses().Create(ctx, &storagev1.StorageClass{
		ObjectMeta: metav1.ObjectMeta{Name: class}, Provisioner: "kubernetes.io/no-provisioner", VolumeBindingMode: &mode,
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.StorageV1().StorageClasses().Delete(ctx, class, metav1.DeleteOptions{}) })
	dirs := map[string]string{} // volume name -> host dir
	for i := range 5 {          // 4 validators and a full node
		name := fmt.Sprintf("%s-%d", class, i)
		dirs[name] = t.TempDir()
		pv := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.PersistentVolumeSpec{
			StorageClassName:              class,
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
			AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
			PersistentVolumeSource:        corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: dirs[name]}},
		}}
		if _, err := cs.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cs.CoreV1().PersistentVolumes().Delete(ctx, name, metav1.DeleteOptions{}) })
	}
	before := chainperfNamespaces(t, cs)
	code, out, r := runScenario(t, besideOthers(`name = "k8s-volume"
[testnet]
provider = "kubernetes"
validators = 4
[testnet.kubernetes]
storage_class = "`+class+`"
storage_size = "1Gi"
[load]
rate = 50
duration = "24s"
[experiment]
kind = "steady"
warmup = "1s"
[criteria]
max_unresolved = 0
[[perturbation]]
kind = "kill"
nodes = ["validator3"]
at = "4s"
duration = "4s"
`))
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, out)
	}
	if len(r.Faults) != 1 || r.Faults[0].What != "kill (pod made again, home kept on its volume)" || r.Faults[0].CatchUp <= 0 {
		t.Fatalf("faults %+v; want the kill, the home kept, the pod back at the tip", r.Faults)
	}
	kill := r.Faults[0]
	// The volume validator3's claim was bound to, now released.
	var home string
	for name, dir := range dirs {
		pv, err := cs.CoreV1().PersistentVolumes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if ref := pv.Spec.ClaimRef; ref != nil && ref.Name == "validator3-home" {
			home = dir
			if pv.Status.Phase != corev1.VolumeReleased {
				t.Errorf("volume %s is %s after the run: its claim should be deleted with the testnet", name, pv.Status.Phase)
			}
		}
	}
	if home == "" {
		t.Fatal("no volume was bound to validator3's home claim")
	}
	st, err := os.Stat(filepath.Join(home, "config", "config.toml"))
	if err != nil || !st.ModTime().Before(kill.Begin) {
		t.Errorf("validator3's config on its volume: %v, written %v; want it from before the kill at %v (kept, not copied again)", err, st.ModTime(), kill.Begin)
	}
	var sign struct {
		Height string `json:"height"`
	}
	if b, err := os.ReadFile(filepath.Join(home, "data", "priv_validator_state.json")); err != nil || json.Unmarshal(b, &sign) != nil || sign.Height == "0" {
		t.Errorf("validator3's signing state on its volume: %q (%v); want a height past 0", b, err)
	}
	if now := chainperfNamespaces(t, cs); len(now) != len(before) {
		t.Errorf("namespaces after the run: %v; before: %v", now, before)
	}
}
