//! Hostile input (issue 12): every case gives the exact diagnostic or
//! warning a user would see, and never a panic.
