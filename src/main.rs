//! The `warroom-memory` binary: a thin wrapper around [`warroom_memory::cli`].

fn main() -> std::process::ExitCode {
    warroom_memory::cli::main()
}
