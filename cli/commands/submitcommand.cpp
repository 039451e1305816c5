#include "submitcommand.h"

#include "api/blobupload.h"
#include "clicontext.h"
#include "datasetcommand.h"
#include "console.h"
#include "jobspec/jobspecparser.h"
#include "packaging/gitworktree.h"
#include "packaging/packagebuilder.h"
#include "progressbar.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonValue>
#include <QRegularExpression>
#include <QTemporaryDir>

using namespace Qt::Literals::StringLiterals;

namespace ddl::cli {

QString SubmitCommand::summary() const
{
    return tr("package the code at HEAD and the dataset, upload them and start a job");
}

QList<OptionSpec> SubmitCommand::options() const
{
    return {
        {u"task_config"_s,
         u"FILE"_s,
         tr("a DDL task.yaml (default: ./task.yaml); run in the repository root"),
         {},
         false},
        {u"job_config"_s, u"FILE"_s, tr("an OpenPAI job (v1 JSON or v2 YAML)"), {}, false},
        {u"priority"_s,
         u"N"_s,
         tr("-100 to 100 (default 0): higher runs first; between users, fair share decides"),
         {},
         false},
        outputOption()};
}

QString SubmitCommand::defaultJobName(const QString &folderName)
{
    static const QRegularExpression invalid(u"[^A-Za-z0-9._~-]+"_s);
    QString name = folderName;
    name.replace(invalid, u"-"_s);
    return name;
}

QString SubmitCommand::localDataFolder(const QString &dataDir, const QString &baseFolder)
{
    if (dataDir.isEmpty() || dataDir.contains(u"://"_s))
        return {};
    const QFileInfo info(QDir(baseFolder), dataDir);
    return info.isDir() ? info.absoluteFilePath() : QString();
}

namespace {
// What goes to the server besides the spec.
struct Payload
{
    std::optional<PackageInfo> package;
    QString datasetManifest;
};
} // namespace

static Error specError(const QString &path, const QList<SpecError> &errors)
{
    QStringList lines;
    for (const SpecError &error : errors)
        lines << u"  "_s + error.toString();
    return Error::make(u"invalid_spec"_s,
                       SubmitCommand::tr("%1 is not a valid job:\n%2").arg(path, lines.join(u'\n')),
                       errors.isEmpty() ? QString() : errors.first().field);
}

static Status refuseDirtyTree(const GitWorkTree &tree, const QString &datasetFolder)
{
    Result<WorkTreeStatus> status = tree.status();
    if (!status)
        return status.error();
    if (status->isClean())
        return Ok{};
    QString hint = SubmitCommand::tr("commit or stash them (git stash -u), then submit again");
    // A dataset inside the repository is sent on its own and belongs in .gitignore.
    if (!datasetFolder.isEmpty() && datasetFolder.startsWith(tree.rootPath() + u'/')) {
        const QString relative = QDir(tree.rootPath()).relativeFilePath(datasetFolder);
        for (const GitFileChange &change : status->changes) {
            if (change.path == relative || change.path.startsWith(relative + u'/')) {
                hint = SubmitCommand::tr("commit or stash them (git stash -u), and add the "
                                         "dataset folder %1/ to .gitignore; then submit again")
                           .arg(relative);
                break;
            }
        }
    }
    QStringList lines;
    for (const QString &line : status->describe())
        lines << u"  "_s + line;
    return Error::make(u"dirty_tree"_s,
                       SubmitCommand::tr("the working tree of %1 has changes that are not "
                                         "committed; %2:\n%3")
                           .arg(tree.rootPath(), hint, lines.join(u'\n')));
}

static Status
upload(CliContext &context, const QString &label, const QString &path, const QString &sha256)
{
    ProgressBar bar(context.console(), label);
    Status status = context.runAuthorized([&](ApiClient &api) -> Status {
        BlobUpload blob(&api, path, sha256);
        QObject::connect(&blob, &BlobUpload::progress, [&bar](const TransferProgress &progress) {
            bar.update(progress);
        });
        blob.start();
        const Result<QString> &result = blob.waitForFinished();
        if (!result)
            return result.error();
        return Ok{};
    });
    bar.finish();
    return status;
}

// The dataset folder goes up as a manifest of blobs: only files the server lacks are sent.
static Result<QString> uploadDataset(CliContext &context, const QString &folder)
{
    QString manifest;
    Status status = context.runAuthorized([&](ApiClient &api) -> Status {
        Result<QString> sent = DatasetCommand::send(context.console(), api, folder);
        if (!sent)
            return sent.error();
        manifest = *sent;
        return Ok{};
    });
    if (!status)
        return status.error();
    return manifest;
}

Status SubmitCommand::run(CliContext &context, const ParsedArguments &arguments)
{
    Result<OutputFormat> format = outputFormat(arguments);
    if (!format)
        return format.error();
    if (arguments.isSet(u"task_config"_s) && arguments.isSet(u"job_config"_s)) {
        return Error::make(
            u"usage"_s, tr("pass either --task_config or --job_config, not both"), u"job_config"_s);
    }
    const bool openPai = arguments.isSet(u"job_config"_s);
    const QString configPath = openPai ? arguments.value(u"job_config"_s)
                                       : arguments.value(u"task_config"_s, u"task.yaml"_s);
    const QFileInfo configInfo(configPath);
    if (!configInfo.isFile()) {
        return Error::make(u"not_found"_s,
                           openPai ? tr("the job config %1 does not exist").arg(configPath)
                                   : tr("the task config %1 does not exist; run ddlcli submit in "
                                        "the repository root or pass --task_config=FILE")
                                         .arg(configPath),
                           openPai ? u"job_config"_s : u"task_config"_s);
    }
    QFile configFile(configInfo.absoluteFilePath());
    if (!configFile.open(QIODevice::ReadOnly)) {
        return Error::make(u"io_error"_s,
                           tr("cannot read %1: %2").arg(configPath, configFile.errorString()));
    }
    const QByteArray configText = configFile.readAll();

    // The repository: the one holding the task.yaml; for an OpenPAI job, the current folder's,
    // if it is in one.
    const QString searchFrom = openPai ? QDir::currentPath() : configInfo.absolutePath();
    Result<GitWorkTree> tree = GitWorkTree::open(searchFrom);
    if (!tree && !(openPai && tree.error().code == u"not_a_repository"_s))
        return tree.error();
    const QString root = tree ? tree->rootPath() : QString();

    const QString defaultName = defaultJobName(QFileInfo(tree ? root : searchFrom).fileName());
    const SpecParseResult parsed =
        openPai ? JobSpecParser::parsePaiConfigDetailed(configText)
                : JobSpecParser::parseTaskYamlDetailed(configText, defaultName);
    if (!parsed.ok())
        return specError(configPath, parsed.errors);
    const JobSpec &spec = *parsed.spec;
    for (const QString &note : parsed.notes)
        context.console().printError(tr("note: %1").arg(note) + u'\n');

    QString datasetFolder;
    if (openPai) {
        datasetFolder = localDataFolder(spec.dataDir, QDir::currentPath());
    } else {
        const QFileInfo location(QDir(root), spec.datasetLocation);
        if (!location.isDir()) {
            return Error::make(u"not_found"_s,
                               tr("job_data.dataset.dataset_location: %1 is not a folder (paths "
                                  "are relative to the repository root %2)")
                                   .arg(location.absoluteFilePath(), root),
                               u"job_data.dataset.dataset_location"_s);
        }
        datasetFolder = location.canonicalFilePath();
    }

    if (tree) {
        if (Status clean = refuseDirtyTree(*tree, datasetFolder); !clean)
            return clean;
    }

    // Log in (or refresh) before the packing work, so that a stale session fails fast.
    if (Result<ApiResponse> probe = context.sendAuthorized(
            [](ApiClient &api) { return api.get(u"/v1/jobs"_s, QUrlQuery(u"limit=1"_s)); });
        !probe) {
        return probe.error();
    }

    QTemporaryDir scratch;
    if (!scratch.isValid()) {
        return Error::make(u"io_error"_s,
                           tr("cannot create a temporary folder: %1").arg(scratch.errorString()));
    }
    Console &console = context.console();
    Payload payload;
    if (tree) {
        Result<PackageInfo> package =
            PackageBuilder(root).build(scratch.filePath(u"package.tar.zst"_s));
        if (!package)
            return package.error();
        for (const QString &warning : package->warnings)
            console.printError(tr("warning: %1").arg(warning) + u'\n');
        console.printStatus(tr("Packaged commit %1 (%2 files, %3)")
                                .arg(package->commitId.left(12))
                                .arg(package->fileCount)
                                .arg(Output::humanSize(package->size)) +
                            u'\n');
        payload.package = *package;
    }
    if (payload.package) {
        if (Status sent = upload(
                context, tr("code   "), payload.package->archivePath, payload.package->sha256);
            !sent) {
            return sent;
        }
    }
    if (!datasetFolder.isEmpty()) {
        Result<QString> manifest = uploadDataset(context, datasetFolder);
        if (!manifest)
            return manifest.error();
        payload.datasetManifest = *manifest;
    }

    QJsonObject body{{"spec"_L1, spec.toJson()}};
    if (arguments.isSet(u"priority"_s)) {
        bool ok = false;
        const int priority = arguments.value(u"priority"_s).toInt(&ok);
        if (!ok || priority < -100 || priority > 100)
            return Error::make(u"usage"_s, tr("--priority must be a whole number from -100 to 100"),
                               u"priority"_s);
        body.insert("priority"_L1, priority);
    }
    body.insert("package"_L1,
                payload.package ? QJsonValue(QJsonObject{{"sha256"_L1, payload.package->sha256},
                                                         {"commit"_L1, payload.package->commitId}})
                                : QJsonValue(QJsonValue::Null));
    body.insert("dataset"_L1,
                payload.datasetManifest.isEmpty()
                    ? QJsonValue(QJsonValue::Null)
                    : QJsonValue(QJsonObject{{"manifest"_L1, payload.datasetManifest}}));
    Result<ApiResponse> answer =
        context.sendAuthorized([&](ApiClient &api) { return api.postJson(u"/v1/jobs"_s, body); });
    if (!answer)
        return answer.error();
    const QString uuid = answer->json().value("uuid"_L1).toString();
    if (uuid.isEmpty()) {
        return Error::make(u"bad_answer"_s,
                           tr("the server accepted the job but sent no uuid; run ddlcli list to "
                              "find it"));
    }
    if (*format == OutputFormat::Json)
        console.print(Output::jsonLine({{"job_uuid"_L1, uuid}}));
    else
        console.print(u"job_uuid: "_s + uuid + u'\n');
    return Ok{};
}

} // namespace ddl::cli
