//! iogen's entry point: parse the command line, open the cluster (the ranks of an MPI job, or
//! this process alone) and hand both to [`iogen::run`], which runs every step and writes the
//! outputs. Errors print as `Error: …` with their causes; exit codes: 0 done, 1 IO/system error,
//! 2 invalid input or refused target, 130 interrupted (SIGINT/SIGTERM).
//!
//! Under an MPI launcher (the `mpi` feature) every rank runs this same pipeline on its own host;
//! the [`Cluster`] makes them agree on every check, start each step together and end it in the
//! same subinterval, and rank 0 writes the outputs (`docs/iogen-mpi.md`).

use iogen::cluster::{self, Cluster, Solo};
use iogen::run::{exit_code, run};

fn main() {
    let cluster = match open_cluster() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("Error: {e:#}");
            std::process::exit(2);
        }
    };
    let cli = match iogen::cli::parse_args(std::env::args_os()) {
        Ok(cli) => cli,
        Err(e) => {
            // Every rank parsed the same arguments; one message is enough.
            if cluster.rank() == 0 {
                let _ = e.print();
            }
            drop(cluster);
            std::process::exit(e.exit_code());
        }
    };
    let code = match run(cli, cluster.as_ref()) {
        Ok(code) => code,
        Err(e) => {
            let code = exit_code(&e);
            if cluster.size() > 1 {
                // The other ranks may be waiting in a collective: end the job (whole CSV lines
                // were written, each batch in one write).
                eprintln!("Error (rank {} on {}): {e:#}", cluster.rank(), iogen::cli::hostname());
                cluster.abort(code);
            }
            eprintln!("Error: {e:#}");
            code
        }
    };
    drop(cluster);
    std::process::exit(code);
}

/// The ranks of this run: an MPI job when started by a launcher (with the `mpi` feature), else
/// this process alone. Started by a launcher without MPI compiled in, each copy would offer the
/// whole rate on its own: refused.
fn open_cluster() -> anyhow::Result<Box<dyn Cluster>> {
    let launched = cluster::launched_ranks(&|k| std::env::var(k).ok());
    #[cfg(feature = "mpi")]
    if let Some(n) = launched {
        let c = iogen::cluster::mpi::MpiCluster::init()?;
        if c.size() != n {
            anyhow::bail!(
                "the launcher started {n} ranks but MPI sees {} (this iogen's MPI library does not match the \
                 launcher: with Slurm, try srun --mpi=pmix, or mpirun from the same MPI)",
                c.size()
            );
        }
        return Ok(Box::new(c));
    }
    #[cfg(not(feature = "mpi"))]
    if let Some(n) = launched.filter(|n| *n > 1) {
        anyhow::bail!(
            "iogen was started as one of {n} ranks by an MPI or Slurm launcher, but this build has no MPI (iogen \
             --version says so), so each copy would run the whole step alone; build it with `cargo build --release \
             --features mpi` (iogen/README.md)"
        );
    }
    let _ = launched;
    Ok(Box::new(Solo))
}
