#include "imagesview.h"

#include "api/apiclient.h"
#include "api/datasetupload.h"
#include "api/imagepush.h"
#include "core/errortext.h"
#include "core/requestcallback.h"
#include "models/imagemodel.h"
#include "pushimagedialog.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QLabel>
#include <QLocale>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

ImagesView::ImagesView(QWidget *parent)
    : QWidget(parent)
    , m_model(new ImageModel(this))
    , m_table(new QTableView(this))
    , m_progress(new QProgressBar(this))
    , m_status(new QLabel(this))
    , m_pushButton(new QPushButton(this))
    , m_cancelButton(new QPushButton(this))
    , m_removeButton(new QPushButton(this))
    , m_refreshButton(new QPushButton(this))
{
    m_table->setObjectName(u"imageTable"_s);
    m_table->setModel(m_model);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_progress->hide();
    m_cancelButton->hide();
    m_status->setObjectName(u"imageStatus"_s);
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    retranslateUi();
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_pushButton);
    buttons->addWidget(m_removeButton);
    buttons->addWidget(m_refreshButton);
    buttons->addStretch();
    auto *progress = new QHBoxLayout;
    progress->addWidget(m_progress, 1);
    progress->addWidget(m_cancelButton);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(buttons);
    layout->addWidget(m_table, 1);
    layout->addLayout(progress);
    layout->addWidget(m_status);

    connect(m_refreshButton, &QPushButton::clicked, this, &ImagesView::refresh);
    connect(m_pushButton, &QPushButton::clicked, this, [this] {
        auto *dialog = new PushImageDialog(this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        connect(dialog, &QDialog::accepted, this, [this, dialog] {
            pushImage(dialog->localImage(), dialog->imageName());
        });
        dialog->open();
    });
    connect(m_cancelButton, &QPushButton::clicked, this, [this] {
        if (m_push)
            m_push->cancel();
    });
    connect(m_removeButton, &QPushButton::clicked, this, [this] {
        const QModelIndex current = m_table->currentIndex();
        if (!current.isValid())
            return;
        const QString name = current.data(ImageModel::NameRole).toString();
        if (QMessageBox::question(this,
                                  tr("Remove image"),
                                  tr("Remove the image ddl://%1 from the server? Jobs that "
                                     "name it can no longer start.")
                                      .arg(name)) == QMessageBox::Yes)
            removeImage(name);
    });
}

// Retranslates itself instead of being rebuilt: a push under way must not stop for a language
// change.
void ImagesView::retranslateUi()
{
    if (m_showingHint)
        setStatus(tr("Push a local podman image to run jobs in it as ddl://NAME."), true);
    m_pushButton->setText(tr("Push image…"));
    m_cancelButton->setText(tr("Cancel push"));
    m_removeButton->setText(tr("Remove"));
    m_refreshButton->setText(tr("Refresh"));
    emit m_model->headerDataChanged(Qt::Horizontal, 0, m_model->columnCount() - 1);
    m_table->viewport()->update();
}

void ImagesView::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
}

void ImagesView::setStatus(const QString &text, bool hint)
{
    m_status->setText(text);
    m_showingHint = hint;
}

QString ImagesView::statusText() const
{
    return m_status->text();
}

void ImagesView::setClient(ApiClient *client)
{
    m_client = client;
    if (isVisible())
        refresh();
}

void ImagesView::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    refresh();
}

void ImagesView::refresh()
{
    if (!m_client)
        return;
    whenFinished(m_client->images(), this, [this](const Result<ApiResponse> &result) {
        if (!result) {
            setStatus(ErrorText::describe(result.error()));
            return;
        }
        m_model->setRows(result->json().value("images"_L1).toArray());
        emit refreshed();
    });
}

void ImagesView::pushImage(const QString &localImage, const QString &name)
{
    if (!m_client)
        return;
    if (m_push) {
        setStatus(tr("Wait for the current push to finish."));
        return;
    }
    m_push = new ImagePush(m_client, localImage, name, this);
    m_progress->setRange(0, 0);
    m_progress->show();
    m_cancelButton->show();
    m_pushButton->setEnabled(false);
    setStatus(tr("Saving %1 with podman…").arg(localImage));
    connect(m_push, &ImagePush::saved, this, [this](qint64 bytes) {
        setStatus(tr("Sending the layers of %1 (%2) the server does not have…")
                      .arg(m_push->localImage(), QLocale().formattedDataSize(bytes)));
        connect(m_push->upload(),
                &DatasetUpload::progress,
                this,
                [this](const TransferProgress &progress) {
                    m_progress->setRange(0, 1000);
                    m_progress->setValue(
                        progress.total > 0 ? int(progress.done * 1000 / progress.total) : 0);
                });
    });
    connect(m_push, &ImagePush::finished, this, [this] {
        const bool ok = m_push->result().ok();
        const QJsonObject image = m_push->image();
        const QString message =
            ok ? tr("Image ddl://%1 is on the server (%2); jobs can name it now.")
                     .arg(m_push->name(),
                          QLocale().formattedDataSize(image.value("total_size"_L1).toInteger()))
               : ErrorText::describe(m_push->result().error());
        m_progress->hide();
        m_cancelButton->hide();
        m_pushButton->setEnabled(true);
        setStatus(message);
        m_push->deleteLater();
        m_push = nullptr;
        refresh();
        emit pushFinished(ok, message);
    });
    m_push->start();
}

void ImagesView::removeImage(const QString &name)
{
    if (!m_client)
        return;
    whenFinished(
        m_client->deleteImage(name), this, [this, name](const Result<ApiResponse> &result) {
            setStatus(result ? tr("Removed ddl://%1.").arg(name)
                             : ErrorText::describe(result.error()));
            refresh();
        });
}

} // namespace ddl::desktop
