package schema

var psPolicies = []string{"optimus", "hash"}

// PSBlocks lists a model's parameter blocks, the arrays that parameter
// servers hold and workers push and pull every step.
var PSBlocks = &Table{
	Name:    "ps_blocks",
	Version: 1,
	Doc: "One row per parameter block (a weight or bias array) of one model, in the order the framework " +
		"registers them (the block's key is its row number from 0). Input of `optimus place ps-blocks`.",
	Key: "block",
	Columns: []Column{
		{Name: "block", Type: String, Required: true, Unique: true, NonEmpty: true, Doc: "Block name (e.g. fc6_weight)."},
		{Name: "bytes", Type: Int64, Unit: "bytes", Required: true, Min: one, Doc: "Size of the block."},
		{Name: "model", Type: String, Nullable: true, Doc: "Model the block belongs to (informative)."},
	},
}

// PSAssignment assigns parameter blocks, or slices of them, to parameter
// servers.
var PSAssignment = &Table{
	Name:    "ps_assignment",
	Version: 1,
	Doc: "One row per piece of a parameter block assigned to a parameter server by `optimus place ps-blocks`: " +
		"a whole block is one piece; a sliced block has one row per slice. Each piece is one update request per " +
		"worker per step.",
	Columns: []Column{
		{Name: "block", Type: String, Required: true, NonEmpty: true, Doc: "Block name."},
		{Name: "piece", Type: Int64, Required: true, Min: zero, Doc: "Slice index within the block, from 0."},
		{Name: "pieces", Type: Int64, Required: true, Min: one, Doc: "Slices the block was cut into (1: whole)."},
		{Name: "offset_bytes", Type: Int64, Unit: "bytes", Required: true, Min: zero, Doc: "Where the slice starts in the block."},
		{Name: "bytes", Type: Int64, Unit: "bytes", Required: true, Min: one, Doc: "Size of the slice."},
		{Name: "ps", Type: Int64, Required: true, Min: zero, Doc: "Parameter server holding the slice, from 0."},
		{Name: "policy", Type: String, Required: true, Enum: psPolicies,
			Doc: "optimus (the paper's balancing, section 5) or hash (the framework default: small blocks by key hash, large ones split over every server)."},
	},
}

// PSBalance compares how evenly policies spread parameter blocks over
// parameter servers.
var PSBalance = &Table{
	Name:    "ps_balance",
	Version: 1,
	Doc: "One row per policy of `optimus place ps-blocks --compare`: the load (bytes) and update requests of " +
		"the most and least loaded parameter servers. The slowest server sets the pace of every step.",
	Key: "policy",
	Columns: []Column{
		{Name: "policy", Type: String, Required: true, Unique: true, Enum: psPolicies, Doc: "Assignment policy."},
		{Name: "servers", Type: Int64, Required: true, Min: one, Doc: "Parameter servers."},
		{Name: "blocks", Type: Int64, Required: true, Min: zero, Doc: "Blocks assigned."},
		{Name: "pieces", Type: Int64, Required: true, Min: zero, Doc: "Pieces (requests per worker per step) after slicing."},
		{Name: "max_bytes", Type: Int64, Unit: "bytes", Required: true, Min: zero, Doc: "Load of the most loaded server."},
		{Name: "min_bytes", Type: Int64, Unit: "bytes", Required: true, Min: zero, Doc: "Load of the least loaded server."},
		{Name: "bytes_imbalance", Type: Float64, Required: true, Min: zero, Doc: "max_bytes / mean load (1 is perfect balance)."},
		{Name: "max_requests", Type: Int64, Required: true, Min: zero, Doc: "Pieces on the busiest server."},
		{Name: "min_requests", Type: Int64, Required: true, Min: zero, Doc: "Pieces on the least busy server."},
		{Name: "requests_imbalance", Type: Float64, Required: true, Min: zero, Doc: "max_requests / mean requests (1 is perfect balance)."},
	},
}
