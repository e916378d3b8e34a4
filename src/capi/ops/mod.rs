//! Operator entry points: one file per CANN operator header.
