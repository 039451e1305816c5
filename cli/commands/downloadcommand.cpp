#include "downloadcommand.h"

#include "api/artifactdownload.h"
#include "clicontext.h"
#include "console.h"
#include "progressbar.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>

using namespace Qt::Literals::StringLiterals;

namespace ddl::cli {

QString DownloadCommand::summary() const
{
    return tr("download a job's artifacts (its model output), resuming and verifying them");
}

QList<OptionSpec> DownloadCommand::options() const
{
    return {jobUuidOption(),
            {u"dest"_s,
             u"DIR"_s,
             tr("the folder to put the files in (default: the current one)"),
             {},
             false},
            seedTaskConfigOption(),
            outputOption()};
}

Status DownloadCommand::run(CliContext &context, const ParsedArguments &arguments)
{
    Result<OutputFormat> format = outputFormat(arguments);
    if (!format)
        return format.error();
    Result<QString> uuid = jobUuid(arguments);
    if (!uuid)
        return uuid.error();
    const QString dest = QDir(arguments.value(u"dest"_s, u"."_s)).absolutePath();

    Result<ApiResponse> answer =
        context.sendAuthorized([&](ApiClient &api) { return api.artifacts(*uuid); });
    if (!answer)
        return answer.error();
    // Every path is checked before anything is written.
    Result<QList<ArtifactFile>> artifacts =
        ArtifactDownload::parseList(answer->json().value("files"_L1).toArray());
    if (!artifacts)
        return artifacts.error();

    Console &console = context.console();
    QJsonArray landed;
    std::unique_ptr<ProgressBar> bar;
    Status status = context.runAuthorized([&](ApiClient &api) -> Status {
        ArtifactDownload download(&api, *uuid);
        QObject::connect(&download, &ArtifactDownload::fileProgress,
                         [&](const QString &path, const TransferProgress &progress) {
                             if (!bar)
                                 bar = std::make_unique<ProgressBar>(console, path);
                             bar->update(progress);
                         });
        QObject::connect(&download, &ArtifactDownload::fileDone, [&](const ArtifactFile &file) {
            if (bar)
                bar->finish();
            bar.reset();
            if (*format == OutputFormat::Table) {
                console.print((file.downloaded ? tr("downloaded  %1 (%2)")
                                               : tr("up to date  %1 (%2)"))
                                  .arg(QDir::toNativeSeparators(dest + u'/' + file.path),
                                       Output::humanSize(file.size))
                              + u'\n');
            }
        });
        download.start(*artifacts, dest);
        const Result<QList<ArtifactFile>> &files = download.waitForFinished();
        if (!files)
            return files.error();
        for (const ArtifactFile &file : *files) {
            landed.append(QJsonObject{{"path"_L1, QString(dest + u'/' + file.path)},
                                      {"size"_L1, file.size},
                                      {"sha256"_L1, file.sha256},
                                      {"downloaded"_L1, file.downloaded}});
        }
        return Ok{};
    });
    if (bar)
        bar->finish();
    if (!status)
        return status;

    if (*format == OutputFormat::Json) {
        console.print(
            Output::jsonLine({{"job_uuid"_L1, *uuid}, {"dest"_L1, dest}, {"files"_L1, landed}}));
    } else if (artifacts->isEmpty()) {
        console.print(tr("Job %1 has no artifacts.").arg(*uuid) + u'\n');
    } else {
        const QString where = QDir::toNativeSeparators(dest);
        console.print((artifacts->size() == 1
                           ? tr("The file of job %1 is in %2").arg(*uuid, where)
                           : tr("The %1 files of job %2 are in %3")
                                 .arg(QString::number(artifacts->size()), *uuid, where)) +
                      u'\n');
    }
    return Ok{};
}

} // namespace ddl::cli
