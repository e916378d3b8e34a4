//! aclFormat values and the rank-agreement rule of SEMANTICS §6.

use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Format(i32);

const NAMES: &[(i32, &str, bool)] = &[
    // (value, C name, public)
    (-1, "ACL_FORMAT_UNDEFINED", false),
    (0, "ACL_FORMAT_NCHW", true),
    (1, "ACL_FORMAT_NHWC", true),
    (2, "ACL_FORMAT_ND", true),
    (3, "ACL_FORMAT_NC1HWC0", false),
    (4, "ACL_FORMAT_FRACTAL_Z", false),
    (12, "ACL_FORMAT_NC1HWC0_C04", false),
    (16, "ACL_FORMAT_HWCN", true),
    (27, "ACL_FORMAT_NDHWC", true),
    (29, "ACL_FORMAT_FRACTAL_NZ", false),
    (30, "ACL_FORMAT_NCDHW", true),
    (32, "ACL_FORMAT_NDC1HWC0", false),
    (33, "ACL_FRACTAL_Z_3D", false),
    (35, "ACL_FORMAT_NC", true),
    (47, "ACL_FORMAT_NCL", true),
    (50, "ACL_FORMAT_FRACTAL_NZ_C0_16", false),
    (51, "ACL_FORMAT_FRACTAL_NZ_C0_32", false),
    (52, "ACL_FORMAT_FRACTAL_NZ_C0_2", false),
    (53, "ACL_FORMAT_FRACTAL_NZ_C0_4", false),
    (54, "ACL_FORMAT_FRACTAL_NZ_C0_8", false),
];

impl Format {
    pub const NCHW: Format = Format(0);
    pub const NHWC: Format = Format(1);
    pub const ND: Format = Format(2);
    pub const HWCN: Format = Format(16);
    pub const NDHWC: Format = Format(27);
    pub const NCDHW: Format = Format(30);
    pub const NC: Format = Format(35);
    pub const NCL: Format = Format(47);
    /// The cube unit's fractal layout (`nz` below); matrix operators take it for weights.
    pub const FRACTAL_NZ: Format = Format(29);

    /// Validates an `aclFormat` integer that arrived from C.
    pub fn from_raw(v: i32) -> Result<Format, String> {
        if NAMES.iter().any(|(k, _, _)| *k == v) {
            Ok(Format(v))
        } else {
            Err(format!("format {v} is not an aclFormat value"))
        }
    }

    pub fn raw(self) -> i32 {
        self.0
    }

    fn entry(self) -> &'static (i32, &'static str, bool) {
        NAMES
            .iter()
            .find(|(k, _, _)| *k == self.0)
            .unwrap_or(&NAMES[0])
    }

    /// One of the layouts any host program may create (ND, NCHW, NHWC, HWCN, NDHWC, NCDHW, NC, NCL).
    pub fn is_public(self) -> bool {
        self.entry().2
    }

    /// The rank a public layout format implies (None for ND, which takes any rank).
    pub fn required_rank(self) -> Option<usize> {
        match self {
            Format::NCDHW | Format::NDHWC => Some(5),
            Format::NCHW | Format::NHWC | Format::HWCN => Some(4),
            Format::NCL => Some(3),
            Format::NC => Some(2),
            _ => None,
        }
    }

    /// SEMANTICS §6 for layout-agnostic ops: every public format whose rank agrees;
    /// private device formats are refused.
    pub fn check_for_elementwise(self, param: &str, rank: usize) -> Result<(), String> {
        if !self.is_public() {
            return Err(format!(
                "tensor '{param}' has the private device format {self}, which host code cannot produce; \
                 use ACL_FORMAT_ND or another public format"
            ));
        }
        match self.required_rank() {
            Some(r) if r != rank => Err(format!(
                "tensor '{param}' has format {self}, which needs {r} dims, but the tensor has {rank} dims"
            )),
            _ => Ok(()),
        }
    }
}

/// Where the elements of a matrix stored in ACL_FORMAT_FRACTAL_NZ live. The stored matrix
/// (rows × cols, as aclnnTransMatmulWeight received it) is cut into fractals of 16 rows ×
/// `c0` columns, `c0` = 32 bytes of elements (16 for f16/bf16, 8 for f32, 32 for int8);
/// fractals are column-block major: the NZ shape is (⌈cols/c0⌉, ⌈rows/16⌉, 16, c0), rows
/// padded to a multiple of 16 and columns to a multiple of c0. A batch of matrices is
/// consecutive such blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Nz {
    pub rows: usize,
    pub cols: usize,
    pub c0: usize,
}

impl Nz {
    pub fn new(rows: usize, cols: usize, elem_size: usize) -> Nz {
        Nz {
            rows,
            cols,
            c0: (32 / elem_size.max(1)).max(1),
        }
    }

    /// Rows padded to the fractal height.
    pub fn padded_rows(&self) -> usize {
        self.rows.div_ceil(16) * 16
    }

    /// Elements one stored matrix occupies, padding included.
    pub fn elements(&self) -> usize {
        self.cols.div_ceil(self.c0) * self.padded_rows() * self.c0
    }

    /// Element index (from the block's start) of stored element (r, c).
    pub fn index(&self, r: usize, c: usize) -> usize {
        ((c / self.c0) * self.padded_rows() + r) * self.c0 + c % self.c0
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.entry().1)
    }
}
