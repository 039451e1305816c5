#include "seedsubmitter.h"

#include "clicontext.h"
#include "commands/submitcommand.h"
#include "console.h"

#include "packaging/directoryarchiver.h"

#include <QTemporaryDir>

using namespace Qt::Literals::StringLiterals;

namespace ddl::cli {

QStringList SeedSubmitter::skippedNames()
{
    return {u".git"_s, u"__pycache__"_s};
}

Status
SeedSubmitter::submit(CliContext &context, const SeedSubmission &submission, OutputFormat format)
{
    Console &console = context.console();
    for (const QString &note : submission.notes)
        console.printError(tr("note: %1").arg(note) + u'\n');

    // Log in (or refresh) before the packing work, so that a stale session fails fast.
    if (Result<ApiResponse> probe = context.sendAuthorized([](ApiClient &api) {
            return api.listJobs({1, 0, {}});
        });
        !probe) {
        return probe.error();
    }

    QTemporaryDir scratch;
    if (!scratch.isValid()) {
        return Error::make(ErrorCode::IoError,
                           tr("cannot create a temporary folder: %1").arg(scratch.errorString()));
    }
    DirectoryArchiver archiver;
    archiver.setSkippedNames(skippedNames());
    Result<ArchiveInfo> package =
        archiver.archive(submission.packageFolder, scratch.filePath(u"package.tar.zst"_s));
    if (!package)
        return package.error();
    for (const QString &warning : package->warnings)
        console.printError(tr("warning: %1").arg(warning) + u'\n');
    // Unlike ddlcli submit, nothing here is a commit: say what was taken, also to scripts.
    console.printError(tr("Packaged the folder %1 as it is on disk, not a git commit (%2 files, "
                          "%3; %4 left out); package sha256 %5")
                           .arg(submission.packageFolder)
                           .arg(package->fileCount)
                           .arg(Output::humanSize(package->size),
                                skippedNames().join(u", "_s),
                                package->sha256.left(12)) +
                       u'\n');
    if (Status sent = SubmitCommand::uploadBlob(
            context, tr("code   "), package->archivePath, package->sha256);
        !sent) {
        return sent;
    }

    JobSubmit job;
    job.spec = submission.spec.toJson();
    job.priority = submission.priority;
    job.allowUnschedulable = submission.allowUnschedulable;
    job.packageSha256 = package->sha256;
    if (!submission.datasetFolder.isEmpty()) {
        Result<QString> manifest = SubmitCommand::uploadDataset(context, submission.datasetFolder);
        if (!manifest)
            return manifest.error();
        job.datasetManifest = *manifest;
    }
    job.datasetName = submission.datasetName;

    Result<ApiResponse> answer = SubmitCommand::sendJob(context, job);
    if (!answer)
        return answer.error();
    const QString uuid = answer->json().value("uuid"_L1).toString();
    const QString kind = JobSpec::kindName(submission.spec.kind);
    const QString name = submission.spec.jobName;
    if (format == OutputFormat::Json) {
        console.print(Output::jsonLine(
            {{"job_uuid"_L1, uuid}, {"job_type"_L1, kind}, {"job_name"_L1, name}}));
        return Ok{};
    }
    console.print(u"Status: "_s + QString::number(answer->status) + u'\n');
    console.print(u"job_uuid: "_s + uuid + u'\n');
    console.print(u"job_type: "_s + kind + u'\n');
    console.print(u"job_name: "_s + name + u'\n');
    return Ok{};
}

} // namespace ddl::cli
