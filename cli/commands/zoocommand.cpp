#include "zoocommand.h"

#include "api/imagepush.h"
#include "clicontext.h"
#include "commands/imagecommand.h"
#include "console.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QSaveFile>
#include <QStandardPaths>

using namespace Qt::Literals::StringLiterals;

namespace ddl::cli {

QString ZooCommand::summary() const
{
    return tr("ElasticDL's image workflow: zoo init --base_image=IMAGE | zoo build --image=NAME "
              "[PATH] | zoo push IMAGE");
}

QList<OptionSpec> ZooCommand::options() const
{
    return {OptionSpec::make(u"base_image"_s, u"IMAGE"_s,
                             tr("init: the image the Dockerfile starts FROM (one podman has, or "
                                "can pull)")),
            OptionSpec::make(u"extra_pypi_index"_s, u"URL"_s,
                             tr("init: a package index pip uses besides PyPI")),
            OptionSpec::make(u"force"_s, {}, tr("init: write over an existing Dockerfile")),
            OptionSpec::make(u"image"_s, u"NAME"_s, tr("build: the name of the image to build")),
            OptionSpec::make(u"name"_s, u"NAME"_s,
                             tr("push: the image's name on the server (default: the local "
                                "image's name without registry and tag)")),
            OptionSpec::make(u"to_registry"_s, {},
                             tr("push: to the registry the image's name holds (podman push) "
                                "instead of to DDL")),
            outputOption()};
}

static Error usage(const QString &message)
{
    return Error::make(ErrorCode::Usage, message + ZooCommand::tr("; run ddlcli zoo --help"));
}

static Result<QString> podmanProgram()
{
    const QString podman = QStandardPaths::findExecutable(u"podman"_s);
    if (podman.isEmpty()) {
        return Error::make(ErrorCode::NotFound,
                           ZooCommand::tr("podman is not installed; ddlcli zoo builds and "
                                          "pushes images with it (sudo apt install podman)"));
    }
    return podman;
}

// Runs podman with its output passed on to the user as it comes; a build takes minutes.
static Status runPodman(Console &console, const QStringList &arguments, const QString &what)
{
    Result<QString> podman = podmanProgram();
    if (!podman)
        return podman.error();
    QProcess process;
    process.setProcessChannelMode(QProcess::MergedChannels);
    QObject::connect(&process, &QProcess::readyRead, &process, [&] {
        console.printError(QString::fromLocal8Bit(process.readAll()));
    });
    process.start(*podman, arguments);
    process.closeWriteChannel();
    if (!process.waitForFinished(-1) || process.exitStatus() != QProcess::NormalExit ||
        process.exitCode() != 0) {
        console.printError(QString::fromLocal8Bit(process.readAll()));
        return Error::make(ErrorCode::InvalidImage,
                           ZooCommand::tr("%1 failed (podman %2, exit %3); its output is above")
                               .arg(what, arguments.value(0))
                               .arg(process.exitCode()));
    }
    return Ok{};
}

Status ZooCommand::run(CliContext &context, const ParsedArguments &arguments)
{
    const QStringList words = arguments.positional();
    const QString action = words.value(0);
    if (action == u"init"_s && words.size() == 1)
        return init(context, arguments);
    if (action == u"build"_s && words.size() <= 2)
        return build(context, words.value(1, u"."_s), arguments);
    if (action == u"push"_s && words.size() == 2)
        return push(context, words.at(1), arguments);
    if (action.isEmpty())
        return usage(tr("say what to do: init, build or push"));
    return usage(tr("'%1' is not zoo init, zoo build [PATH] or zoo push IMAGE")
                     .arg(words.join(u' ').left(100)));
}

QByteArray ZooCommand::dockerfile(const QString &baseImage, const QString &extraPypiIndex)
{
    const QString index =
        extraPypiIndex.isEmpty() ? QString() : u" --extra-index-url="_s + extraPypiIndex;
    return (u"# Written by ddlcli zoo init: the image this model zoo's jobs run in.\n"
            "# Build it with ddlcli zoo build --image=NAME ., send it with ddlcli zoo push NAME.\n"
            "FROM "_s + baseImage + u"\n"
            "COPY . /model_zoo\n"
            "WORKDIR /model_zoo\n"
            "RUN if [ -f requirements.txt ]; then python3 -m pip install --no-cache-dir"_s
            + index + u" -r requirements.txt; fi\n"_s)
        .toUtf8();
}

Status ZooCommand::init(CliContext &context, const ParsedArguments &arguments)
{
    const QString base = arguments.value(u"base_image"_s);
    if (base.isEmpty())
        return usage(tr("zoo init needs --base_image=IMAGE, the image to start from"));
    if (Status checked = ImagePush::checkReference(base); !checked)
        return checked;
    const QString index = arguments.value(u"extra_pypi_index"_s);
    // A URL goes into a RUN line: nothing that the shell would read as more than a word.
    static const QRegularExpression url(
        QRegularExpression::anchoredPattern(u"https?://[A-Za-z0-9._~:/?#@!$&()*+,;=%-]+"_s));
    if (!index.isEmpty() && !url.match(index).hasMatch()) {
        return usage(tr("--extra_pypi_index=%1 is not an http(s) URL").arg(index.left(100)));
    }
    const QString path = QDir::current().filePath(u"Dockerfile"_s);
    if (QFileInfo::exists(path) && !arguments.isSet(u"force"_s)) {
        return Error::make(ErrorCode::DestinationNotEmpty,
                           tr("%1 exists already; pass --force to write over it").arg(path),
                           u"force"_s);
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(dockerfile(base, index)) < 0 ||
        !file.commit()) {
        return Error::make(ErrorCode::IoError,
                           tr("cannot write %1: %2").arg(path, file.errorString()));
    }
    context.console().print(tr("wrote %1 (FROM %2); next: ddlcli zoo build --image=NAME .\n")
                                .arg(path, base));
    return Ok{};
}

Status ZooCommand::build(CliContext &context, const QString &path, const ParsedArguments &arguments)
{
    const QString image = arguments.value(u"image"_s);
    if (image.isEmpty())
        return usage(tr("zoo build needs --image=NAME, the name to give the image"));
    if (Status checked = ImagePush::checkReference(image); !checked)
        return checked;
    const QFileInfo folder(path);
    const QString recipe = QDir(folder.absoluteFilePath()).filePath(u"Dockerfile"_s);
    if (!folder.isDir() || !QFileInfo(recipe).isFile()) {
        return Error::make(ErrorCode::NotFound,
                           tr("%1 has no Dockerfile; write one with ddlcli zoo init "
                              "--base_image=IMAGE in that folder")
                               .arg(folder.absoluteFilePath()));
    }
    QStringList podman{u"build"_s};
    // Debian 12's crun refuses a hybrid cgroup hierarchy; the worker runs runc too.
    const QString runc = QStandardPaths::findExecutable(u"runc"_s);
    if (!runc.isEmpty())
        podman << u"--runtime"_s << runc;
    // The host's network: rootless podman has no other in many places (docs/images.md).
    podman << u"--network"_s << u"host"_s << u"--file"_s << recipe << u"--tag"_s << image
           << u"--"_s << folder.absoluteFilePath();
    if (Status built = runPodman(context.console(), podman, tr("building %1").arg(image));
        !built)
        return built;
    context.console().print(tr("built %1; next: ddlcli zoo push %1\n").arg(image));
    return Ok{};
}

Status ZooCommand::push(CliContext &context, const QString &image, const ParsedArguments &arguments)
{
    Result<OutputFormat> format = outputFormat(arguments);
    if (!format)
        return format.error();
    if (Status checked = ImagePush::checkReference(image); !checked)
        return checked;
    if (!arguments.isSet(u"to_registry"_s)) {
        const QString name = arguments.isSet(u"name"_s) ? arguments.value(u"name"_s)
                                                        : ImagePush::defaultName(image);
        return ImageCommand::push(context, image, name, *format);
    }
    if (Status pushed = runPodman(context.console(), {u"push"_s, u"--"_s, image},
                                  tr("pushing %1 to its registry").arg(image));
        !pushed)
        return pushed;
    context.console().print(tr("pushed %1; jobs name it as it is\n").arg(image));
    return Ok{};
}

} // namespace ddl::cli
