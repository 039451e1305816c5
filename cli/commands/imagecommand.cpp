#include "imagecommand.h"

#include "api/datasetupload.h"
#include "api/imagepush.h"
#include "clicontext.h"
#include "console.h"
#include "datasetcommand.h"

#include <QDir>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QProcess>
#include <QTemporaryDir>

using namespace Qt::Literals::StringLiterals;

namespace ddl::cli {

QString ImageCommand::summary() const
{
    return tr("images on the server, for jobs to name as ddl://NAME: image push IMAGE [--name "
              "NAME] | list | rm NAME");
}

QList<OptionSpec> ImageCommand::options() const
{
    return {{u"name"_s,
             u"NAME"_s,
             tr("the image's name on the server (push; default: the local "
                "image's name without registry and tag)"),
             {},
             false},
            outputOption()};
}

static Error usage(const QString &message)
{
    return Error::make(ErrorCode::Usage, message + ImageCommand::tr("; run ddlcli image --help"));
}

Status ImageCommand::run(CliContext &context, const ParsedArguments &arguments)
{
    Result<OutputFormat> format = outputFormat(arguments);
    if (!format)
        return format.error();
    const QStringList words = arguments.positional();
    const QString action = words.value(0);
    if (action == u"list"_s && words.size() == 1)
        return list(context, *format);
    if (words.size() != 2)
        return usage(tr("say what to do: push IMAGE, list or rm NAME"));
    if (action == u"push"_s) {
        const QString name = arguments.isSet(u"name"_s) ? arguments.value(u"name"_s)
                                                        : ImagePush::defaultName(words.at(1));
        return push(context, words.at(1), name, *format);
    }
    if (action == u"rm"_s)
        return remove(context, words.at(1), *format);
    return usage(tr("unknown image action '%1'").arg(action));
}

Status ImageCommand::push(CliContext &context,
                          const QString &localImage,
                          const QString &name,
                          OutputFormat format)
{
    if (Status checked = ImagePush::checkReference(localImage); !checked)
        return checked;
    const Result<QString> podman = ImagePush::podman();
    if (!podman)
        return podman.error();
    QTemporaryDir scratch;
    if (!scratch.isValid()) {
        return Error::make(
            ErrorCode::IoError,
            tr("cannot make a temporary folder for the image: %1").arg(scratch.errorString()));
    }
    const QString layout = scratch.filePath(u"layout"_s);
    Console &console = context.console();
    console.printStatus(tr("saving %1 with podman save --format oci-dir\n").arg(localImage));
    QProcess save;
    save.setProcessChannelMode(QProcess::MergedChannels);
    save.start(*podman, ImagePush::saveArguments(localImage, layout));
    save.closeWriteChannel();
    // A big image takes minutes; podman ends on its own, with a message, when it cannot.
    if (!save.waitForFinished(-1) || save.exitStatus() != QProcess::NormalExit ||
        save.exitCode() != 0) {
        return ImagePush::saveFailed(localImage, save.readAll());
    }
    QJsonObject created;
    qint64 sent = 0;
    qint64 skipped = 0;
    Status status = context.runAuthorized([&](ApiClient &api) -> Status {
        Result<QString> manifest = DatasetCommand::send(console,
                                                        api,
                                                        layout,
                                                        name,
                                                        &created,
                                                        DatasetUpload::Collection::Images,
                                                        &sent,
                                                        &skipped);
        return manifest ? Status(Ok{}) : Status(manifest.error());
    });
    if (!status)
        return status;
    if (format == OutputFormat::Json) {
        created.insert(u"bytes_sent"_s, sent);
        created.insert(u"bytes_skipped"_s, skipped);
        console.print(Output::jsonLine(created));
        return Ok{};
    }
    console.print(tr("image ddl://%1: %2, digest %3; sent %4 bytes, %5 bytes were on the server "
                     "already\n")
                      .arg(name,
                           Output::humanSize(created.value("total_size"_L1).toInteger()),
                           created.value("digest"_L1).toString())
                      .arg(sent)
                      .arg(skipped));
    return Ok{};
}

Status ImageCommand::list(CliContext &context, OutputFormat format)
{
    Result<ApiResponse> answer =
        context.sendAuthorized([](ApiClient &api) { return api.images(); });
    if (!answer)
        return answer.error();
    const QJsonObject page = answer->json();
    if (format == OutputFormat::Json) {
        context.console().print(Output::jsonLine(page));
        return Ok{};
    }
    const QJsonArray images = page.value("images"_L1).toArray();
    if (images.isEmpty()) {
        context.console().print(tr("No images yet; push one with ddlcli image push IMAGE.\n"));
        return Ok{};
    }
    QList<QStringList> rows;
    for (const QJsonValue &value : images) {
        const QJsonObject image = value.toObject();
        rows << QStringList{u"ddl://"_s + image.value("name"_L1).toString(),
                            Output::humanSize(image.value("total_size"_L1).toInteger()),
                            image.value("created_at"_L1).toString(),
                            image.value("digest"_L1).toString().left(19)};
    }
    context.console().print(
        Output::table({tr("IMAGE"), tr("SIZE"), tr("PUSHED"), tr("DIGEST")}, rows));
    return Ok{};
}

Status ImageCommand::remove(CliContext &context, const QString &name, OutputFormat format)
{
    const QString bare = name.startsWith("ddl://"_L1) ? name.mid(6) : name;
    Result<ApiResponse> answer =
        context.sendAuthorized([&](ApiClient &api) { return api.deleteImage(bare); });
    if (!answer)
        return answer.error();
    if (format == OutputFormat::Json)
        context.console().print(Output::jsonLine(answer->json()));
    else
        context.console().print(tr("image ddl://%1 removed\n").arg(bare));
    return Ok{};
}

} // namespace ddl::cli
