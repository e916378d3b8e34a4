//! Tests of the core rules, by topic.
