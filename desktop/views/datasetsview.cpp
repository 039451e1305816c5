#include "datasetsview.h"

#include "api/apiclient.h"
#include "api/datasetupload.h"
#include "core/errortext.h"
#include "core/folderdrop.h"
#include "core/requestcallback.h"
#include "models/datasetmodel.h"

#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QLabel>
#include <QLocale>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QTableView>
#include <QTreeWidget>
#include <QVBoxLayout>

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

DatasetsView::DatasetsView(QWidget *parent)
    : QWidget(parent)
    , m_model(new DatasetModel(this))
    , m_table(new QTableView(this))
    , m_files(new QTreeWidget(this))
    , m_hashing(new QProgressBar(this))
    , m_status(new QLabel(this))
    , m_dropMessage(new QLabel(this))
{
    setAcceptDrops(true);
    m_table->setObjectName(u"datasetTable"_s);
    m_table->setModel(m_model);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_files->setObjectName(u"uploadFiles"_s);
    m_files->setRootIsDecorated(false);
    m_files->hide();
    m_hashing->hide();
    m_status->setObjectName(u"datasetStatus"_s);
    m_status->setWordWrap(true);
    // Its own line: a refused drag must not replace what the status line says of an upload.
    m_dropMessage->setObjectName(u"dropMessage"_s);
    m_dropMessage->setWordWrap(true);
    m_dropMessage->hide();
    // A refused drag gets no leave event to say it went: the reason goes after a while.
    m_dropMessageTimer.setSingleShot(true);
    m_dropMessageTimer.setInterval(DropMessageMs);
    connect(&m_dropMessageTimer, &QTimer::timeout, m_dropMessage, &QLabel::hide);
    m_uploadButton = new QPushButton(this);
    m_deleteButton = new QPushButton(this);
    m_refreshButton = new QPushButton(this);
    retranslateUi();
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_uploadButton);
    buttons->addWidget(m_deleteButton);
    buttons->addWidget(m_refreshButton);
    buttons->addStretch();
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(buttons);
    layout->addWidget(m_table, 2);
    layout->addWidget(m_hashing);
    layout->addWidget(m_files, 1);
    layout->addWidget(m_dropMessage);
    layout->addWidget(m_status);

    connect(m_refreshButton, &QPushButton::clicked, this, &DatasetsView::refresh);
    connect(m_uploadButton, &QPushButton::clicked, this, [this] {
        const QString folder = QFileDialog::getExistingDirectory(this, tr("Dataset folder"));
        if (!folder.isEmpty())
            uploadFolder(folder);
    });
    connect(m_deleteButton, &QPushButton::clicked, this, [this] {
        const QModelIndex current = m_table->currentIndex();
        if (!current.isValid())
            return;
        const QString name = current.data(DatasetModel::NameRole).toString();
        if (QMessageBox::question(this, tr("Delete dataset"),
                                  tr("Delete the dataset %1? Jobs that used it keep their "
                                     "data.").arg(name))
            == QMessageBox::Yes)
            deleteDataset(name);
    });
}

// The texts this screen sets once; it retranslates itself instead of being rebuilt, because an
// upload it runs must not stop for a language change.
void DatasetsView::retranslateUi()
{
    m_files->setHeaderLabels({tr("File being sent"), tr("Progress")});
    if (m_showingHint)
        setStatus(tr("Drop a folder here to upload it as a dataset."), true);
    m_uploadButton->setText(tr("Upload folder…"));
    m_deleteButton->setText(tr("Delete"));
    m_refreshButton->setText(tr("Refresh"));
    emit m_model->headerDataChanged(Qt::Horizontal, 0, m_model->columnCount() - 1);
    m_table->viewport()->update();
}

void DatasetsView::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
}

void DatasetsView::setStatus(const QString &text, bool hint)
{
    m_status->setText(text);
    m_showingHint = hint;
}

DatasetUpload *DatasetsView::currentUpload() const
{
    return m_upload;
}

QString DatasetsView::statusText() const
{
    return m_status->text();
}

QString DatasetsView::dropMessage() const
{
    return m_dropMessage->isHidden() ? QString() : m_dropMessage->text();
}

void DatasetsView::setClient(ApiClient *client)
{
    m_client = client;
    if (isVisible())
        refresh();
}

void DatasetsView::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    refresh();
}

void DatasetsView::refresh()
{
    if (!m_client)
        return;
    whenFinished(m_client->datasets(), this, [this](const Result<ApiResponse> &result) {
        if (!result) {
            setStatus(ErrorText::describe(result.error()));
            return;
        }
        m_model->setRows(result->json().value("datasets"_L1).toArray());
        emit refreshed();
    });
}

// Only one local folder is taken; anything else is refused during the drag, with the reason
// shown for a few seconds on a line of its own. What the drag carries is looked at (on disk)
// once, when it enters: the mouse moves that follow are answered from that.
void DatasetsView::dragEnterEvent(QDragEnterEvent *event)
{
    m_drag = FolderDrop::inspect(event->mimeData());
    m_dropMessage->setText(m_drag.problem);
    m_dropMessage->setVisible(!m_drag.isFolder());
    if (m_drag.isFolder())
        m_dropMessageTimer.stop();
    else
        m_dropMessageTimer.start();
    m_drag.answer(event);
}

void DatasetsView::dragMoveEvent(QDragMoveEvent *event)
{
    m_drag.answer(event);
}

void DatasetsView::dropEvent(QDropEvent *event)
{
    if (m_drag.answer(event))
        uploadFolder(m_drag.folder);
    m_drag = {};
}

void DatasetsView::dragLeaveEvent(QDragLeaveEvent *event)
{
    QWidget::dragLeaveEvent(event);
    m_drag = {};
    m_dropMessage->hide();
}

// A dataset name from a folder name: the characters the server allows.
static QString datasetName(const QString &folder)
{
    static const QRegularExpression invalid(u"[^A-Za-z0-9._-]+"_s);
    QString name = QFileInfo(folder).fileName();
    name.replace(invalid, u"-"_s);
    while (!name.isEmpty() && !name.front().isLetterOrNumber())
        name.remove(0, 1);
    return name.left(100).isEmpty() ? u"dataset"_s : name.left(100);
}

void DatasetsView::uploadFolder(const QString &folder)
{
    if (!m_client)
        return;
    if (m_upload) {
        setStatus(tr("Wait for the current upload to finish."));
        return;
    }
    m_upload = new DatasetUpload(m_client, folder, this);
    m_upload->setName(datasetName(folder));
    m_files->clear();
    m_fileItems.clear();
    m_files->show();
    m_hashing->setRange(0, 0);
    m_hashing->show();
    setStatus(tr("Reading %1…").arg(folder));
    connect(m_upload, &DatasetUpload::hashing, this, [this](qint64 done, qint64 total) {
        m_hashing->setRange(0, int(std::max<qint64>(1, total / 1024)));
        m_hashing->setValue(int(done / 1024));
    });
    connect(m_upload, &DatasetUpload::planned, this, [this](const QStringList &paths) {
        m_hashing->hide();
        setStatus(paths.isEmpty()
                              ? tr("The server has every file already.")
                              : tr("Sending %n file(s) the server does not have…", nullptr,
                                   int(paths.size())));
        for (const QString &path : paths)
            m_fileItems.insert(path, new QTreeWidgetItem(m_files, {path, tr("waiting")}));
    });
    connect(m_upload, &DatasetUpload::fileProgress, this,
            [this](const QString &path, qint64 done, qint64 total) {
                if (QTreeWidgetItem *item = m_fileItems.value(path))
                    item->setText(1, total > 0 ? u"%1 %"_s.arg(done * 100 / total) : QString());
            });
    connect(m_upload, &DatasetUpload::fileSent, this, [this](const QString &path) {
        if (QTreeWidgetItem *item = m_fileItems.value(path))
            item->setText(1, tr("sent"));
    });
    connect(m_upload, &DatasetUpload::finished, this, [this] {
        const bool ok = m_upload->result().ok();
        const QString message = ok ? tr("Dataset %1: %n file(s), %2 sent.",
                                        nullptr,
                                        int(m_upload->manifest().files().size()))
                                         .arg(m_upload->name())
                                         .arg(m_upload->uploadedFiles().size())
                                   : ErrorText::describe(m_upload->result().error());
        m_hashing->hide();
        setStatus(message);
        m_upload->deleteLater();
        m_upload = nullptr;
        refresh();
        emit uploadFinished(ok, message);
    });
    m_upload->start();
}

void DatasetsView::deleteDataset(const QString &name)
{
    if (!m_client)
        return;
    whenFinished(
        m_client->deleteDataset(name), this, [this, name](const Result<ApiResponse> &result) {
            setStatus(result ? tr("Deleted %1.").arg(name) : ErrorText::describe(result.error()));
            refresh();
        });
}

} // namespace ddl::desktop
