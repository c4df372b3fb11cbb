package kubernetes

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/chainperf/chainperf/internal/scenario"
	"github.com/chainperf/chainperf/internal/testnet"
)

// genPod is pod idx of job "generators-1" in the phase given.
func genPod(idx int, phase corev1.PodPhase, exit int32) *corev1.Pod {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "generators-1-" + strconv.Itoa(idx), Namespace: "ns",
			Labels:      map[string]string{"batch.kubernetes.io/job-name": "generators-1"},
			Annotations: map[string]string{"batch.kubernetes.io/job-completion-index": strconv.Itoa(idx)}},
		Status: corev1.PodStatus{Phase: phase},
	}
	if phase == corev1.PodFailed {
		pod.Status.ContainerStatuses = []corev1.ContainerStatus{{State: corev1.ContainerState{
			Terminated: &corev1.ContainerStateTerminated{ExitCode: exit, Reason: "Error"}}}}
	}
	if phase == corev1.PodPending {
		pod.Status.ContainerStatuses = []corev1.ContainerStatus{{State: corev1.ContainerState{
			Waiting: &corev1.ContainerStateWaiting{Reason: "ErrImageNeverPull", Message: "image not present"}}}}
	}
	return pod
}

func fakeProvider(pods ...*corev1.Pod) *Provider {
	cs := fake.NewClientset()
	for _, p := range pods {
		_, _ = cs.CoreV1().Pods("ns").Create(context.Background(), p, metav1.CreateOptions{})
	}
	return &Provider{cs: cs, ns: "ns", log: slog.New(slog.DiscardHandler), net: &testnet.Testnet{ID: "tn-000001"},
		spec: scenario.Kubernetes{Ready: scenario.Duration(5 * time.Second)}}
}

// A generator pod that dies is an error that names it and says how it
// ended; one that never starts is one after the ready timeout; one that
// ends well but printed no result is one too. The harness reads the
// answers only when every pod succeeded.
func TestGeneratorPodsReported(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, tc := range []struct {
		name string
		pods []*corev1.Pod
		want string
	}{
		{"died", []*corev1.Pod{genPod(0, corev1.PodSucceeded, 0), genPod(1, corev1.PodFailed, 2)}, "generator pod 1 (ns/generators-1-1) died: exit 2 (Error)"},
		{"never started", []*corev1.Pod{genPod(0, corev1.PodPending, 0), genPod(1, corev1.PodSucceeded, 0)}, "generator pod 0 (ns/generators-1-0) not running after 5s (testnet.kubernetes.ready_timeout): ErrImageNeverPull: image not present"},
		// The fake API's log of every pod is "fake logs".
		{"no result", []*corev1.Pod{genPod(0, corev1.PodSucceeded, 0), genPod(1, corev1.PodSucceeded, 0)}, "generator pod 0: ns/generators-1-0 printed no result; its log ends: fake logs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := fakeProvider(tc.pods...).waitGenerators(ctx, "generators-1", 2, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v; want %q", err, tc.want)
			}
		})
	}
	// A pod gone (deleted): the Job's failure says why.
	gone := fakeProvider(genPod(0, corev1.PodSucceeded, 0))
	_, _ = gone.cs.BatchV1().Jobs("ns").Create(ctx, &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "generators-1", Namespace: "ns"},
		Status: batchv1.JobStatus{Conditions: []batchv1.JobCondition{{Type: batchv1.JobFailed, Status: corev1.ConditionTrue,
			Reason: "BackoffLimitExceeded", Message: "Job has reached the specified backoff limit"}}}}, metav1.CreateOptions{})
	if _, err := gone.waitGenerators(ctx, "generators-1", 2, nil); err == nil || !strings.Contains(err.Error(), "generator job ns/generators-1 failed: BackoffLimitExceeded") {
		t.Errorf("a pod gone, its job failed: %v", err)
	}
	// Still running: it waits (here until the context ends).
	short, stop := context.WithTimeout(ctx, time.Second)
	defer stop()
	if _, err := fakeProvider(genPod(0, corev1.PodRunning, 0), genPod(1, corev1.PodSucceeded, 0)).waitGenerators(short, "generators-1", 2, nil); err != context.DeadlineExceeded {
		t.Errorf("a generator still running: %v; want it waited for", err)
	}
}
