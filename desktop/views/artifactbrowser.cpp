#include "artifactbrowser.h"

#include "api/apiclient.h"
#include "api/artifactdownload.h"
#include "core/errortext.h"
#include "core/requestcallback.h"
#include "models/artifactmodel.h"

#include <QDesktopServices>
#include <QDir>
#include <QFileDialog>
#include <QFontDatabase>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QImage>
#include <QJsonDocument>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableWidget>
#include <QTreeView>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

static constexpr int MaxPreviewRows = 500;

ArtifactBrowser::ArtifactBrowser(ApiClient *client, const QString &jobUuid, QWidget *parent)
    : QWidget(parent)
    , m_client(client)
    , m_jobUuid(jobUuid)
    , m_model(new ArtifactModel(this))
    , m_downloader(new ArtifactDownload(client, jobUuid, this))
{
    m_tree = new QTreeView(this);
    m_tree->setObjectName(u"artifactTree"_s);
    m_tree->setModel(m_model);
    m_tree->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_tree->header()->setStretchLastSection(false);
    m_tree->header()->setSectionResizeMode(ArtifactModel::NameColumn, QHeaderView::Stretch);
    m_text = new QPlainTextEdit(this);
    m_text->setReadOnly(true);
    m_text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_table = new QTableWidget(this);
    m_image = new QLabel(this);
    m_image->setAlignment(Qt::AlignCenter);
    auto *imageScroll = new QScrollArea(this);
    imageScroll->setWidget(m_image);
    imageScroll->setWidgetResizable(true);
    m_previewStack = new QStackedWidget(this);
    m_previewStack->addWidget(new QLabel(tr("Select a file to preview it."), this));
    m_previewStack->addWidget(m_text);
    m_previewStack->addWidget(m_table);
    m_previewStack->addWidget(imageScroll);

    auto *refresh = new QPushButton(tr("Refresh"), this);
    auto *downloadSelected = new QPushButton(tr("Download selected…"), this);
    auto *downloadAll = new QPushButton(tr("Download all…"), this);
    m_openFolder = new QPushButton(tr("Open folder"), this);
    m_openFolder->setEnabled(false);
    m_progress = new QProgressBar(this);
    m_progress->hide();
    m_status = new QLabel(this);
    m_status->setObjectName(u"artifactStatus"_s);
    m_status->setWordWrap(true);

    auto *buttons = new QHBoxLayout;
    buttons->addWidget(refresh);
    buttons->addWidget(downloadSelected);
    buttons->addWidget(downloadAll);
    buttons->addWidget(m_openFolder);
    buttons->addStretch();
    auto *splitter = new QSplitter(this);
    splitter->addWidget(m_tree);
    splitter->addWidget(m_previewStack);
    splitter->setStretchFactor(1, 2);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(buttons);
    layout->addWidget(splitter, 1);
    layout->addWidget(m_progress);
    layout->addWidget(m_status);

    connect(refresh, &QPushButton::clicked, this, &ArtifactBrowser::reload);
    connect(downloadSelected, &QPushButton::clicked, this, [this] { download(false); });
    connect(downloadAll, &QPushButton::clicked, this, [this] { download(true); });
    connect(m_openFolder, &QPushButton::clicked, this, [this] {
        QDesktopServices::openUrl(QUrl::fromLocalFile(m_lastFolder));
    });
    connect(m_tree->selectionModel(), &QItemSelectionModel::currentChanged, this,
            [this](const QModelIndex &current) {
                if (current.data(ArtifactModel::IsFileRole).toBool())
                    preview(current.data(ArtifactModel::PathRole).toString());
            });
    connect(m_downloader, &ArtifactDownload::progress, this, [this](qint64 done, qint64 total) {
        m_progress->setRange(0, int(std::max<qint64>(1, total / 1024)));
        m_progress->setValue(int(done / 1024));
    });
    connect(m_downloader, &ArtifactDownload::finished, this, [this] {
        const auto &result = m_downloader->result();
        const bool ok = result.ok();
        const QString message =
            ok ? tr("Downloaded %n file(s) to %1", nullptr, int(result->size()))
                     .arg(QDir::toNativeSeparators(m_downloader->destination()))
               : tr("Could not download: %1").arg(ErrorText::describe(result.error()));
        m_progress->hide();
        m_status->setText(message);
        m_openFolder->setEnabled(ok);
        emit downloadFinished(ok, message);
    });
}

void ArtifactBrowser::reload()
{
    if (!m_client)
        return;
    whenFinished(m_client->artifacts(m_jobUuid),
                 this,
                 [this](const Result<ApiResponse> &result) {
                     if (!result) {
                         m_status->setText(ErrorText::describe(result.error()));
                         return;
                     }
                     m_model->setFiles(result->json().value("files"_L1).toArray());
                     m_tree->expandAll();
                     m_status->setText(m_model->fileCount() == 0
                                           ? tr("The job has no outputs (yet). Files written to "
                                                "model_output_dir appear here when it ends.")
                                           : tr("%n file(s)", nullptr, m_model->fileCount()));
                     emit listed(m_model->fileCount());
                 });
}

QString ArtifactBrowser::previewText() const
{
    return m_text->toPlainText();
}

void ArtifactBrowser::preview(const QString &path)
{
    if (!m_client)
        return;
    m_previewPath = path;
    whenFinished(m_client->readRange(RemoteFile::artifact(m_jobUuid, path), 0, PreviewBytes - 1),
                 this,
                 [this, path](const Result<ApiResponse> &result) {
                     if (path != m_previewPath)
                         return; // another file was chosen meanwhile
                     if (!result) {
                         m_status->setText(ErrorText::describe(result.error()));
                         return;
                     }
                     showBytes(path, result->body);
                 });
}

void ArtifactBrowser::showBytes(const QString &path, const QByteArray &bytes)
{
    const QString suffix = path.section(u'.', -1).toLower();
    if (suffix == u"png"_s || suffix == u"jpg"_s || suffix == u"jpeg"_s || suffix == u"gif"_s
        || suffix == u"bmp"_s || suffix == u"svg"_s) {
        // Decoding can take a while for big images: off the GUI thread.
        auto *watcher = new QFutureWatcher<QImage>(this);
        connect(watcher, &QFutureWatcher<QImage>::finished, this, [this, watcher, path] {
            watcher->deleteLater();
            m_image->setPixmap(QPixmap::fromImage(watcher->result()));
            m_previewKind = PreviewKind::Image;
            m_previewStack->setCurrentIndex(3);
            emit previewShown(path);
        });
        watcher->setFuture(QtConcurrent::run([bytes] { return QImage::fromData(bytes); }));
        return;
    }
    if (suffix == u"csv"_s) {
        const QList<QByteArray> lines = bytes.split('\n');
        m_table->clear();
        m_table->setRowCount(0);
        const QStringList header = QString::fromUtf8(lines.value(0)).trimmed().split(u',');
        m_table->setColumnCount(int(header.size()));
        m_table->setHorizontalHeaderLabels(header);
        for (qsizetype i = 1; i < lines.size() && i <= MaxPreviewRows; ++i) {
            const QString line = QString::fromUtf8(lines.at(i)).trimmed();
            if (line.isEmpty())
                continue;
            const int row = m_table->rowCount();
            m_table->insertRow(row);
            const QStringList cells = line.split(u',');
            for (qsizetype c = 0; c < cells.size() && c < header.size(); ++c)
                m_table->setItem(row, int(c), new QTableWidgetItem(cells.at(c)));
        }
        m_previewKind = PreviewKind::Table;
        m_previewStack->setCurrentIndex(2);
        emit previewShown(path);
        return;
    }
    QString text;
    const QJsonDocument json = QJsonDocument::fromJson(bytes);
    if (suffix == u"json"_s && !json.isNull())
        text = QString::fromUtf8(json.toJson(QJsonDocument::Indented));
    else if (bytes.left(4096).contains('\0'))
        text = tr("%1 is a binary file; download it to open it.").arg(path);
    else
        text = QString::fromUtf8(bytes);
    if (bytes.size() >= PreviewBytes)
        text += u"\n…"_s + tr("(only the first %1 KiB are shown)").arg(PreviewBytes / 1024);
    m_text->setPlainText(text);
    m_previewKind = PreviewKind::Text;
    m_previewStack->setCurrentIndex(1);
    emit previewShown(path);
}

void ArtifactBrowser::download(bool all)
{
    QJsonArray files;
    if (all) {
        files = m_model->filesUnder({});
    } else {
        for (const QModelIndex &index : m_tree->selectionModel()->selectedRows())
            for (const QJsonValue &file : m_model->filesUnder(index))
                files.append(file);
    }
    if (files.isEmpty()) {
        m_status->setText(tr("Select the files to download first."));
        return;
    }
    const QString folder = QFileDialog::getExistingDirectory(this, tr("Download to"));
    if (!folder.isEmpty())
        downloadTo(files, folder);
}

void ArtifactBrowser::downloadTo(const QJsonArray &files, const QString &folder)
{
    m_lastFolder = folder;
    m_progress->setRange(0, 0);
    m_progress->show();
    m_status->setText(tr("Downloading…"));
    Result<QList<ArtifactFile>> list = ArtifactDownload::parseList(files);
    if (!list) {
        m_progress->hide();
        m_status->setText(ErrorText::describe(list.error()));
        return;
    }
    m_downloader->start(*list, folder);
}

} // namespace ddl::desktop
