#pragma once

#include <QWizardPage>

class QComboBox;
class QLabel;

namespace ddl::desktop {

class FolderField;

// Step 3: the dataset folder (optional): how many files and bytes it holds, counted off the GUI
// thread. It is packed and uploaded content-addressed: bytes the server has are not sent again.
class DatasetPage : public QWizardPage
{
    Q_OBJECT
public:
    explicit DatasetPage(QWidget *parent = nullptr);
    void initializePage() override;
    bool isComplete() const override;
    FolderField *folderField() const { return m_folder; }
    QComboBox *serverCombo() const { return m_serverCombo; }
    QString summary() const;
    // The dataset chosen from the server's list, or empty for the folder (or none).
    QString serverDataset() const;

signals:
    void serverDatasetsListed(int count);

private:
    void measure();
    void listServerDatasets();

    FolderField *m_folder;
    QLabel *m_summary;
    QComboBox *m_serverCombo;
    bool m_listed = false;
    int m_generation = 0;
};

} // namespace ddl::desktop
