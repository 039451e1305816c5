#include "downloadcommand.h"

#include "api/rangedownload.h"
#include "clicontext.h"
#include "console.h"
#include "core/sha256.h"
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

Result<QString> DownloadCommand::safeRelativePath(const QString &path)
{
    auto refuse = [&path](const QString &why) {
        return Error::make(u"unsafe_path"_s,
                           tr("the server listed the artifact '%1', which %2; it was not "
                              "downloaded")
                               .arg(path, why),
                           u"path"_s);
    };
    if (path.isEmpty())
        return refuse(tr("is empty"));
    if (path.startsWith(u'/') || path.contains(u'\\') || (path.size() > 1 && path.at(1) == u':'))
        return refuse(tr("is not a relative path"));
    if (path.contains(QChar(0)))
        return refuse(tr("holds a NUL character"));
    const QStringList parts = path.split(u'/');
    for (const QString &part : parts) {
        if (part == u".."_s)
            return refuse(tr("leads out of the destination with '..'"));
        if (part.isEmpty() || part == u"."_s)
            return refuse(tr("has an empty or '.' part"));
    }
    return parts.join(u'/');
}

// True when path lies inside folder once links are followed.
static bool staysInside(const QString &folder, const QString &path)
{
    const QString root = QFileInfo(folder).canonicalFilePath();
    const QString parent = QFileInfo(QFileInfo(path).absolutePath()).canonicalFilePath();
    return !root.isEmpty() && !parent.isEmpty() &&
           (parent == root || parent.startsWith(root + u'/'));
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

    Result<ApiResponse> answer = context.sendAuthorized(
        [&](ApiClient &api) { return api.get(u"/v1/jobs/"_s + *uuid + u"/artifacts"_s); });
    if (!answer)
        return answer.error();
    const QJsonArray files = answer->json().value("files"_L1).toArray();

    // Every path is checked before anything is written.
    struct Artifact
    {
        QString path;
        qint64 size;
        QString sha256;
    };
    QList<Artifact> artifacts;
    for (const QJsonValue &value : files) {
        const QJsonObject file = value.toObject();
        Result<QString> path = safeRelativePath(file.value("path"_L1).toString());
        if (!path)
            return path.error();
        const QString sha256 = file.value("sha256"_L1).toString();
        if (!isSha256Hex(sha256)) {
            return Error::make(
                u"bad_answer"_s,
                tr("the server listed the artifact '%1' without a valid sha256").arg(*path));
        }
        artifacts.append({*path, file.value("size"_L1).toInteger(), sha256});
    }
    if (!QDir().mkpath(dest))
        return Error::make(u"io_error"_s, tr("cannot create the folder %1").arg(dest), u"dest"_s);

    Console &console = context.console();
    QJsonArray landed;
    for (const Artifact &artifact : artifacts) {
        const QString target = dest + u'/' + artifact.path;
        if (!QDir().mkpath(QFileInfo(target).absolutePath()) || !staysInside(dest, target)) {
            return Error::make(u"unsafe_path"_s,
                               tr("%1 would be written outside %2 (through a link?); nothing more "
                                  "was downloaded")
                                   .arg(target, dest));
        }
        bool upToDate = false;
        if (QFileInfo(target).isFile() && QFileInfo(target).size() == artifact.size) {
            Result<QString> existing = sha256OfFile(target);
            upToDate = existing && *existing == artifact.sha256;
        }
        if (!upToDate) {
            QUrlQuery query;
            query.addQueryItem(u"path"_s, artifact.path);
            ProgressBar bar(console, artifact.path);
            const bool resumed = QFileInfo::exists(target + u".part"_s);
            auto fetch = [&](ApiClient &api) -> Status {
                RangeDownload download(&api,
                                       u"/v1/jobs/"_s + *uuid + u"/artifacts/file"_s,
                                       query,
                                       target,
                                       artifact.sha256);
                QObject::connect(
                    &download, &RangeDownload::progress, [&bar](const TransferProgress &progress) {
                        bar.update(progress);
                    });
                download.start();
                const Result<QString> &result = download.waitForFinished();
                if (!result)
                    return result.error();
                return Ok{};
            };
            Status status = context.runAuthorized(fetch);
            // A .part left by something else fails the digest; RangeDownload removed it, so one
            // more try starts from zero.
            if (!status && resumed && status.error().code == u"digest_mismatch"_s)
                status = context.runAuthorized(fetch);
            bar.finish();
            if (!status)
                return status;
        }
        landed.append(QJsonObject{{"path"_L1, target},
                                  {"size"_L1, artifact.size},
                                  {"sha256"_L1, artifact.sha256},
                                  {"downloaded"_L1, !upToDate}});
        if (*format == OutputFormat::Table) {
            console.print(
                (upToDate ? tr("up to date  %1 (%2)") : tr("downloaded  %1 (%2)"))
                    .arg(QDir::toNativeSeparators(target), Output::humanSize(artifact.size)) +
                u'\n');
        }
    }

    if (*format == OutputFormat::Json) {
        console.print(
            Output::jsonLine({{"job_uuid"_L1, *uuid}, {"dest"_L1, dest}, {"files"_L1, landed}}));
    } else if (artifacts.isEmpty()) {
        console.print(tr("Job %1 has no artifacts.").arg(*uuid) + u'\n');
    } else {
        const QString where = QDir::toNativeSeparators(dest);
        console.print((artifacts.size() == 1
                           ? tr("The file of job %1 is in %2").arg(*uuid, where)
                           : tr("The %1 files of job %2 are in %3")
                                 .arg(QString::number(artifacts.size()), *uuid, where)) +
                      u'\n');
    }
    return Ok{};
}

} // namespace ddl::cli
