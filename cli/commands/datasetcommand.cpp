#include "datasetcommand.h"

#include "api/datasetdownload.h"
#include "api/datasetupload.h"
#include "clicontext.h"
#include "console.h"
#include "progressbar.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>

using namespace Qt::Literals::StringLiterals;

namespace ddl::cli {

QString DatasetCommand::summary() const
{
    return tr("datasets on the server: dataset upload DIR --name NAME | list | download NAME "
              "--dest DIR | rm NAME");
}

QList<OptionSpec> DatasetCommand::options() const
{
    return {{u"name"_s, u"NAME"_s, tr("the dataset's name (upload)"), {}, false},
            {u"dest"_s, u"DIR"_s, tr("where to put the files (download)"), {}, false},
            outputOption()};
}

static Error usage(const QString &message)
{
    return Error::make(ErrorCode::Usage,
                       message + DatasetCommand::tr("; run ddlcli dataset --help"));
}

Status DatasetCommand::run(CliContext &context, const ParsedArguments &arguments)
{
    Result<OutputFormat> format = outputFormat(arguments);
    if (!format)
        return format.error();
    const QStringList words = arguments.positional();
    const QString action = words.value(0);
    if (action == u"list"_s && words.size() == 1)
        return list(context, *format);
    if (words.size() != 2) {
        return usage(tr("say what to do: upload DIR --name NAME, list, download NAME --dest DIR "
                        "or rm NAME"));
    }
    if (action == u"upload"_s)
        return upload(context, words.at(1), arguments);
    if (action == u"download"_s)
        return download(context, words.at(1), arguments);
    if (action == u"rm"_s)
        return remove(context, words.at(1), *format);
    return usage(tr("unknown dataset action '%1'").arg(action));
}

Result<QString> DatasetCommand::send(Console &console,
                                     ApiClient &api,
                                     const QString &folder,
                                     const QString &name,
                                     QJsonObject *created,
                                     DatasetUpload::Collection collection,
                                     qint64 *bytesSent,
                                     qint64 *bytesSkipped)
{
    ProgressBar hashBar(console, tr("hashing"));
    ProgressBar sendBar(console, tr("sending"));
    DatasetUpload dataset(&api, folder);
    dataset.setName(name);
    dataset.setCollection(collection);
    QObject::connect(&dataset, &DatasetUpload::hashing, [&hashBar](qint64 done, qint64 total) {
        hashBar.update(TransferProgress{done, total, 0, -1});
    });
    QObject::connect(
        &dataset, &DatasetUpload::planned, [&](const QStringList &files, qint64 bytes) {
            hashBar.finish();
            console.printStatus(tr("%1: %2 files, %3; %4 to send in %5 files, the rest is on the "
                                   "server already\n")
                                    .arg(QDir::toNativeSeparators(folder))
                                    .arg(dataset.manifest().files().size())
                                    .arg(Output::humanSize(dataset.manifest().totalSize()),
                                         Output::humanSize(bytes))
                                    .arg(files.size()));
        });
    QObject::connect(&dataset, &DatasetUpload::progress,
                     [&sendBar](const TransferProgress &progress) { sendBar.update(progress); });
    dataset.start();
    const Result<QString> &manifest = dataset.waitForFinished();
    hashBar.finish();
    sendBar.finish();
    if (!manifest)
        return manifest.error();
    for (const QString &warning : dataset.manifest().warnings())
        console.printError(tr("warning: %1").arg(warning) + u'\n');
    if (created)
        *created = dataset.dataset();
    if (bytesSent)
        *bytesSent = dataset.bytesToSend();
    if (bytesSkipped)
        *bytesSkipped = dataset.bytesOnServer();
    return *manifest;
}

Status DatasetCommand::upload(CliContext &context, const QString &folder,
                              const ParsedArguments &arguments)
{
    const QString name = arguments.value(u"name"_s);
    if (name.isEmpty())
        return usage(tr("dataset upload needs --name NAME"));
    if (!QFileInfo(folder).isDir())
        return Error::make(ErrorCode::NotFound, tr("%1 is not a folder").arg(folder));
    Console &console = context.console();
    QJsonObject created;
    Status status = context.runAuthorized([&](ApiClient &api) -> Status {
        Result<QString> manifest = send(console, api, folder, name, &created);
        return manifest ? Status(Ok{}) : Status(manifest.error());
    });
    if (!status)
        return status;
    Result<OutputFormat> format = outputFormat(arguments);
    if (format && *format == OutputFormat::Json) {
        console.print(Output::jsonLine(created));
        return Ok{};
    }
    console.print(tr("dataset %1: %2 files, %3 (manifest %4)\n")
                      .arg(name)
                      .arg(created.value("file_count"_L1).toInteger())
                      .arg(Output::humanSize(created.value("total_size"_L1).toInteger()),
                           created.value("manifest_sha256"_L1).toString().left(12)));
    return Ok{};
}

Status DatasetCommand::list(CliContext &context, OutputFormat format)
{
    Result<ApiResponse> answer =
        context.sendAuthorized([](ApiClient &api) { return api.datasets(); });
    if (!answer)
        return answer.error();
    const QJsonObject page = answer->json();
    if (format == OutputFormat::Json) {
        context.console().print(Output::jsonLine(page));
        return Ok{};
    }
    const QJsonArray datasets = page.value("datasets"_L1).toArray();
    if (datasets.isEmpty()) {
        context.console().print(tr("No datasets yet; add one with ddlcli dataset upload DIR "
                                   "--name NAME.\n"));
        return Ok{};
    }
    QList<QStringList> rows;
    for (const QJsonValue &value : datasets) {
        const QJsonObject dataset = value.toObject();
        rows << QStringList{dataset.value("name"_L1).toString(),
                            QString::number(dataset.value("file_count"_L1).toInteger()),
                            Output::humanSize(dataset.value("total_size"_L1).toInteger()),
                            dataset.value("created_at"_L1).toString(),
                            dataset.value("manifest_sha256"_L1).toString().left(12)};
    }
    context.console().print(
        Output::table({tr("NAME"), tr("FILES"), tr("SIZE"), tr("CREATED"), tr("MANIFEST")}, rows));
    return Ok{};
}

Status DatasetCommand::download(CliContext &context, const QString &name,
                                const ParsedArguments &arguments)
{
    const QString destination = arguments.value(u"dest"_s);
    if (destination.isEmpty())
        return usage(tr("dataset download needs --dest DIR"));
    Console &console = context.console();
    int fetched = 0;
    int kept = 0;
    Status status = context.runAuthorized([&](ApiClient &api) -> Status {
        ProgressBar bar(console, name);
        DatasetDownload dataset(&api, name, destination);
        QObject::connect(&dataset, &DatasetDownload::progress,
                         [&bar](const TransferProgress &progress) { bar.update(progress); });
        dataset.start();
        const Result<QString> &result = dataset.waitForFinished();
        bar.finish();
        fetched = dataset.filesFetched();
        kept = dataset.filesKept();
        return result ? Status(Ok{}) : Status(result.error());
    });
    if (!status)
        return status;
    console.print(tr("dataset %1 in %2: %3 files downloaded, %4 already there\n")
                      .arg(name, QDir::toNativeSeparators(QDir(destination).absolutePath()))
                      .arg(fetched)
                      .arg(kept));
    return Ok{};
}

Status DatasetCommand::remove(CliContext &context, const QString &name, OutputFormat format)
{
    Result<ApiResponse> answer =
        context.sendAuthorized([&](ApiClient &api) { return api.deleteDataset(name); });
    if (!answer)
        return answer.error();
    if (format == OutputFormat::Json)
        context.console().print(Output::jsonLine(answer->json()));
    else
        context.console().print(tr("dataset %1 removed\n").arg(name));
    return Ok{};
}

} // namespace ddl::cli
