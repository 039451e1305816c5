#pragma once

#include "api/apiclient.h"
#include "command.h"

namespace ddl {
struct JobSpec;
struct PackageInfo;
}

namespace ddl::cli {

class Console;

// ddlcli submit [--task_config=task.yaml | --job_config=job.json], run in the project folder:
// checks that the folder is committed (and, for a DDL job, that its main.py defines main()),
// packages the folder at HEAD, uploads it and the dataset, and creates the job.
class SubmitCommand : public Command
{
    Q_DECLARE_TR_FUNCTIONS(SubmitCommand)
public:
    QString name() const override { return QStringLiteral("submit"); }
    QString summary() const override;
    QList<OptionSpec> options() const override;
    Status run(CliContext &context, const ParsedArguments &arguments) override;

    // The local folder an OpenPAI dataDir names, or an empty string when it is no local folder
    // (empty, a URL such as hdfs://..., or a path that does not exist here).
    static QString localDataFolder(const QString &dataDir, const QString &baseFolder);

    // Uploads a file as a blob with a progress bar labelled label (resumed after a refresh).
    static Status uploadBlob(CliContext &context,
                             const QString &label,
                             const QString &path,
                             const QString &sha256);
    // Puts a folder on the server as a dataset manifest; the manifest's digest.
    static Result<QString> uploadDataset(CliContext &context, const QString &folder);
    // Sends the job (POST /v1/jobs); the server's answer, which names the job's uuid.
    static Result<ApiResponse> sendJob(CliContext &context, const JobSubmit &job);

    // A committed file this big gets a warning before the package is sent.
    static constexpr qint64 BigFileBytes = 20LL * 1024 * 1024;
    // What the package holds and what makes it big (the largest files; .git's size, not sent).
    static void
    printPreflight(Console &console, const PackageInfo &package, const QString &rootPath);
};

} // namespace ddl::cli
