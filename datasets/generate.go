package datasets

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/optimus-sched/optimus/fit"
)

// The model families of synthetic workloads (datatables.Workload) and the
// parameter blocks of PS models.

// JobModel is what generated jobs of one model family share: its speed
// model (fitted to every embedded measurement of the model), steps per
// epoch and per-task demands (as in the testbed).
type JobModel struct {
	Name       string
	Speed      fit.SpeedModel
	EpochSteps int
	// Worker and PS are one task's demands of gpu, cpu, memory_gb and
	// net_gbps, the resources of GeneratedResources.
	Worker, PS [4]float64
	Image      string
	Command    string
}

// GeneratedResources are the resource columns of generated clusters, in the
// order of JobModel's demand arrays.
var GeneratedResources = []string{"gpu", "cpu", "memory_gb", "net_gbps"}

// JobModels returns the model families of generated jobs, sorted by name.
// Their speed models are fitted once per process (the fit is most of the
// cost and gives the same models every time); each caller gets its own
// copy (a JobModel holds no slice or map).
func JobModels() ([]JobModel, error) {
	jobModelsOnce.Do(func() { jobModels, jobModelsErr = fitJobModels() })
	return slices.Clone(jobModels), jobModelsErr
}

var (
	jobModelsOnce sync.Once
	jobModels     []JobModel
	jobModelsErr  error
)

func fitJobModels() ([]JobModel, error) {
	ms, err := Measured()
	if err != nil {
		return nil, err
	}
	var out []JobModel
	for _, name := range MeasuredModels(ms) {
		m, ok := testbedModels[name]
		if !ok {
			continue
		}
		ref, err := ReferenceSpeedModel(ms, name)
		if err != nil {
			return nil, err
		}
		out = append(out, JobModel{
			Name: name, Speed: ref.Model, EpochSteps: m.EpochSteps,
			Worker:  [4]float64{m.Worker.GPU, m.Worker.CPU, m.Worker.MemGB, m.Worker.NetGbps},
			PS:      [4]float64{m.PS.GPU, m.PS.CPU, m.PS.MemGB, m.PS.NetGbps},
			Image:   "example.com/optimus/mxnet-train:1.9",
			Command: "python " + m.Script + " --kv-store dist_" + ref.Model.Mode,
		})
	}
	return out, nil
}

// Block is one parameter block (an array of a model's parameters) that
// parameter servers hold.
type Block struct {
	Name  string
	Bytes int64
}

// blockModels builds the parameter blocks of the models ParameterBlocks
// knows.
var blockModels = map[string]func() []Block{
	"vgg-16":    vgg16Blocks,
	"resnet-50": resnet50Blocks,
}

// BlockModels lists the models ParameterBlocks knows, sorted.
func BlockModels() []string {
	var names []string
	for n := range blockModels {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ParameterBlocks returns a model's parameter blocks (its weight and bias
// arrays, float32) in definition order, with MXNet-style names: what a PS
// job pushes and pulls every step.
func ParameterBlocks(model string) ([]Block, error) {
	f, ok := blockModels[model]
	if !ok {
		return nil, fmt.Errorf("no parameter blocks for model %q (there are: %s)", model, strings.Join(BlockModels(), ", "))
	}
	return f(), nil
}

const float32Bytes = 4

// vgg16Blocks: VGG-16 (Simonyan and Zisserman, 2015) on 224x224 ImageNet:
// 13 3x3 convolutions and 3 fully connected layers, 138 million parameters,
// 102.8 million of them in fc6 alone: the skewed case.
func vgg16Blocks() []Block {
	var out []Block
	in := 3
	for stage, convs := range []struct{ n, ch int }{{2, 64}, {2, 128}, {3, 256}, {3, 512}, {3, 512}} {
		for k := 1; k <= convs.n; k++ {
			name := fmt.Sprintf("conv%d_%d", stage+1, k)
			out = append(out, Block{name + "_weight", int64(convs.ch*in*3*3) * float32Bytes}, Block{name + "_bias", int64(convs.ch) * float32Bytes})
			in = convs.ch
		}
	}
	for _, fc := range []struct {
		name    string
		in, out int
	}{{"fc6", 512 * 7 * 7, 4096}, {"fc7", 4096, 4096}, {"fc8", 4096, 1000}} {
		out = append(out, Block{fc.name + "_weight", int64(fc.in*fc.out) * float32Bytes}, Block{fc.name + "_bias", int64(fc.out) * float32Bytes})
	}
	return out
}

// resnet50Blocks: ResNet-50 (He et al., 2016): a 7x7 convolution, 16
// bottleneck units in four stages (3, 4, 6, 3) with batch normalisation
// after each convolution (scale and shift: gamma, beta), and a 2048x1000
// classifier: 25.6 million parameters in 161 blocks, most of them small.
func resnet50Blocks() []Block {
	var out []Block
	conv := func(name string, in, outCh, k int) {
		out = append(out, Block{name + "_weight", int64(outCh*in*k*k) * float32Bytes})
	}
	bn := func(name string, ch int) {
		out = append(out, Block{name + "_gamma", int64(ch) * float32Bytes}, Block{name + "_beta", int64(ch) * float32Bytes})
	}
	conv("conv0", 3, 64, 7)
	bn("bn0", 64)
	in := 64
	for s, st := range []struct{ units, ch int }{{3, 256}, {4, 512}, {6, 1024}, {3, 2048}} {
		mid := st.ch / 4
		for u := 1; u <= st.units; u++ {
			p := fmt.Sprintf("stage%d_unit%d_", s+1, u)
			conv(p+"conv1", in, mid, 1)
			bn(p+"bn1", mid)
			conv(p+"conv2", mid, mid, 3)
			bn(p+"bn2", mid)
			conv(p+"conv3", mid, st.ch, 1)
			bn(p+"bn3", st.ch)
			if u == 1 {
				conv(p+"sc", in, st.ch, 1)
				bn(p+"sc_bn", st.ch)
			}
			in = st.ch
		}
	}
	out = append(out, Block{"fc1_weight", int64(2048*1000) * float32Bytes}, Block{"fc1_bias", 1000 * float32Bytes})
	return out
}
