#pragma once

#include "outputformat.h"
#include "seedsubmission.h"

namespace ddl::cli {

class CliContext;

// Sends a job read from a seed's flags: packs its code folder as it is on disk (not a git
// commit; sorted entries, mtime 0, owner 0, so the same files give the same digest and are sent
// once), uploads it and the data folder, creates the job and prints the seed's lines
// (Status / job_uuid / job_type / job_name) or one JSON line.
class SeedSubmitter
{
    Q_DECLARE_TR_FUNCTIONS(SeedSubmitter)
public:
    // Left out of a package: version control and Python's caches, which change without the code.
    static QStringList skippedNames();

    static Status
    submit(CliContext &context, const SeedSubmission &submission, OutputFormat format);
};

} // namespace ddl::cli
